//! An outside bot in Rust on the crates (docs/bots.md): it reads the
//! position with `sawah-engine`, searches one ply with `sawah-agents`'
//! expectiminimax over the hand-made evaluation, and answers. Built with
//! the tests (`cargo test --workspace` builds examples), or
//! `cargo build --example rust_bot`; run from a bots file as
//! `command = ["target/debug/examples/rust_bot"]`.

use sawah_agents::AgentSpec;
use sawah_engine::registry::Registry;
use sawah_engine::{Codec, with_game};
use serde_json::{Value, json};
use std::io::{BufRead, Write};

fn choose(registry: &Registry, request: &Value) -> Result<Value, String> {
    let roll = request["roll"].as_u64().ok_or("no roll")? as u8;
    let (game, json) = registry
        .parse_position(&request["position"])
        .map_err(|e| e.to_string())?;
    with_game!(&game, g => {
        let position = g.position_from_json(&json).map_err(|e| e.to_string())?;
        let moves = g.legal_moves(&position, roll);
        if moves.is_empty() {
            return Ok(json!({"move": null}));
        }
        let mut agent = AgentSpec::parse("expectiminimax:depth=1", g.name())
            .and_then(|spec| spec.build(g))
            .map_err(|e| e.to_string())?;
        let chosen = serde_json::to_value(g.move_to_json(agent.choose(g, &position, roll, &moves)))
            .map_err(|e| e.to_string())?;
        // The request's listed move with the chosen `from` and `to`, sent back
        // as it was given: the harness reads those two fields and ignores the rest.
        let listed = request["moves"].as_array().and_then(|listed| {
            listed
                .iter()
                .find(|m| m["from"] == chosen["from"] && m["to"] == chosen["to"])
        });
        Ok(json!({"move": listed.unwrap_or(&chosen)}))
    })
}

fn main() {
    let registry = Registry::new();
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let request: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let mut reply = match request["cmd"].as_str() {
            Some("hello") => {
                json!({"name": "rust-example", "version": env!("CARGO_PKG_VERSION"), "author": "sawah-ai examples"})
            }
            Some("choose") => choose(&registry, &request).unwrap_or_else(
                |message| json!({"error": {"kind": "invalid_request", "message": message}}),
            ),
            _ => json!({"error": {"kind": "unknown_command", "message": "this bot only plays"}}),
        };
        if let Some(id) = request.get("id") {
            reply["id"] = id.clone();
        }
        let mut out = stdout.lock();
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}
