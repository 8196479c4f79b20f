//! The bot protocol (DESIGN.md §3.2): one JSON request per line in, one JSON
//! response per line out, in order. Every line gets exactly one response,
//! a malformed one an error response; the server never stops before end of input.

use sawah_engine::registry::Registry;
use serde_json::{Map, Value, json};
use std::io::{self, BufRead, Write};

/// The commands this server understands.
pub const COMMANDS: [&str; 4] = ["legal_moves", "start", "rules", "list_rules"];

/// A protocol error: a machine-readable kind and a message for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// One of `invalid_json`, `invalid_request`, `missing_field`,
    /// `invalid_field`, `unknown_command`, `unknown_rules`,
    /// `invalid_position`, `invalid_roll`.
    pub kind: &'static str,
    /// What was wrong, naming the field or value.
    pub message: String,
}

impl ProtocolError {
    fn new(kind: &'static str, message: impl Into<String>) -> ProtocolError {
        ProtocolError {
            kind,
            message: message.into(),
        }
    }
}

/// Serves requests against a registry of rule sets.
#[derive(Clone, Debug, Default)]
pub struct Bot {
    registry: Registry,
}

fn field<'a>(request: &'a Map<String, Value>, name: &str) -> Result<&'a Value, ProtocolError> {
    request.get(name).ok_or_else(|| {
        ProtocolError::new(
            "missing_field",
            format!("the request has no \"{name}\" field"),
        )
    })
}

fn string_field<'a>(request: &'a Map<String, Value>, name: &str) -> Result<&'a str, ProtocolError> {
    field(request, name)?
        .as_str()
        .ok_or_else(|| ProtocolError::new("invalid_field", format!("\"{name}\" must be a string")))
}

impl Bot {
    /// A server that knows the given rule sets.
    pub fn new(registry: Registry) -> Bot {
        Bot { registry }
    }

    /// Answers one request line with one response line (no newline).
    pub fn handle_line(&self, line: &str) -> String {
        let (id, result) = match serde_json::from_str::<Value>(line) {
            Err(e) => (
                None,
                Err(ProtocolError::new(
                    "invalid_json",
                    format!("the line is not JSON: {e}"),
                )),
            ),
            Ok(Value::Object(request)) => {
                let id = request.get("id").cloned();
                (id, self.handle(&request))
            }
            Ok(_) => (
                None,
                Err(ProtocolError::new(
                    "invalid_request",
                    "a request must be a JSON object such as {\"cmd\":\"legal_moves\",…}",
                )),
            ),
        };
        let mut response = Map::new();
        if let Some(id) = id {
            response.insert("id".to_string(), id);
        }
        match result {
            Ok(Value::Object(fields)) => response.extend(fields),
            Ok(other) => {
                response.insert("result".to_string(), other);
            }
            Err(error) => {
                response.insert(
                    "error".to_string(),
                    json!({ "kind": error.kind, "message": error.message }),
                );
            }
        }
        Value::Object(response).to_string()
    }

    fn handle(&self, request: &Map<String, Value>) -> Result<Value, ProtocolError> {
        let cmd = string_field(request, "cmd")?;
        match cmd {
            "legal_moves" => self.legal_moves(request),
            "start" => {
                let rules = self.rules(string_field(request, "rules")?)?;
                Ok(json!({ "position": rules.position_to_json(&rules.start()) }))
            }
            "rules" => {
                let rules = self.rules(string_field(request, "rules")?)?;
                Ok(json!({ "rules": rules.export_json() }))
            }
            "list_rules" => Ok(json!({ "rules": self.registry.names() })),
            other => Err(ProtocolError::new(
                "unknown_command",
                format!(
                    "unknown command {other:?}; commands: {}",
                    COMMANDS.join(", ")
                ),
            )),
        }
    }

    fn rules(
        &self,
        name: &str,
    ) -> Result<std::sync::Arc<sawah_engine::race::RuleSet>, ProtocolError> {
        self.registry
            .get(name)
            .map_err(|e| ProtocolError::new("unknown_rules", e.to_string()))
    }

    fn legal_moves(&self, request: &Map<String, Value>) -> Result<Value, ProtocolError> {
        let (rules, position) = self
            .registry
            .parse_position(field(request, "position")?)
            .map_err(|e| ProtocolError::new(e.kind(), e.to_string()))?;
        let roll_value = field(request, "roll")?;
        let max = rules.dice().max_roll();
        let roll = roll_value
            .as_u64()
            .filter(|&r| r <= u64::from(max))
            .ok_or_else(|| {
                ProtocolError::new(
                    "invalid_roll",
                    format!(
                        "roll {roll_value} is not a whole number from 0 to {max} for {}",
                        rules.name()
                    ),
                )
            })? as u8;
        let moves: Vec<Value> = rules
            .legal_moves(&position, roll)
            .iter()
            .map(|&mv| {
                let outcome = rules.apply(&position, mv);
                let mut entry = rules.move_to_json(mv);
                entry["extra_roll"] = Value::Bool(outcome.extra_roll);
                entry["position"] = json!(rules.position_to_json(&outcome.position));
                entry
            })
            .collect();
        Ok(json!({ "moves": moves }))
    }
}

/// Reads requests until end of input, answering each line and flushing after each.
/// Lines that are not UTF-8 get an error response like any other bad line.
pub fn serve(bot: &Bot, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        let response = match std::str::from_utf8(line) {
            Ok(text) => bot.handle_line(text),
            Err(e) => json!({
                "error": { "kind": "invalid_json", "message": format!("the line is not UTF-8 text: {e}") }
            })
            .to_string(),
        };
        writeln!(output, "{response}")?;
        output.flush()?;
    }
    Ok(())
}
