//! Puzzles through the protocol: `puzzle` by id, of the day and near a
//! rating, `solve_puzzle` right and wrong, and every refusal with its kind.
//! The puzzle of the day is the one `tests/fixtures/daily-puzzles.json`
//! records, which every front door's tests check.

use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use sawah_protocol::Bot;
use serde_json::{Value, json};
use std::path::Path;

fn bot() -> Bot {
    let models = Models::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")).unwrap();
    Bot::new(Registry::new()).with_models(Some(models)).unwrap()
}

fn fixture() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/daily-puzzles.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn kind(answer: &Value) -> &str {
    answer["error"]["kind"].as_str().unwrap_or("no error")
}

#[test]
fn the_puzzle_of_the_day_is_the_recorded_one_for_every_rule_set() {
    let bot = bot();
    let fixture = fixture();
    let ids = fixture["ids"].as_object().unwrap();
    assert_eq!(ids.len(), 7);
    for (rules, id) in ids {
        let answer = bot
            .respond(&json!({"id": 4, "cmd": "puzzle", "rules": rules, "date": fixture["date"]}));
        assert_eq!(answer["id"], 4, "the request's id is echoed");
        assert_eq!(answer["puzzle"]["id"], *id, "{rules}: {answer}");
        // Senet's set holds its three-piece puzzles and as many from the
        // four-piece endgames (docs/puzzles.md).
        let count = if rules == "senet" { 600 } else { 300 };
        assert_eq!(answer["count"], count, "{rules}");
        // The question gives nothing away.
        for secret in ["answer", "themes", "natural"] {
            assert!(answer["puzzle"].get(secret).is_none(), "{secret} shown");
        }
    }
}

#[test]
fn a_puzzle_by_id_and_near_a_rating() {
    let bot = bot();
    let by_id = bot.respond(&json!({"cmd": "puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab"}));
    assert_eq!(by_id["puzzle"]["roll"], 4, "{by_id}");
    assert_eq!(by_id["puzzle"]["moves"].as_array().unwrap().len(), 3);
    let near = bot.respond(&json!({"cmd": "puzzle", "rules": "sawah", "rating": 300}));
    let rating = near["puzzle"]["rating"].as_f64().unwrap();
    assert!((rating - 300.0).abs() < 30.0, "{near}");
    // Seeds pick among the nearest, and the same seed picks the same.
    let picks: std::collections::HashSet<String> = (1..30)
        .map(|seed| {
            let a = bot
                .respond(&json!({"cmd": "puzzle", "rules": "sawah", "rating": 300, "seed": seed}));
            assert!((a["puzzle"]["rating"].as_f64().unwrap() - 300.0).abs() < 60.0);
            a["puzzle"]["id"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(picks.len() > 3, "{picks:?}");
}

#[test]
fn solve_puzzle_checks_and_explains_the_answer() {
    let bot = bot();
    let asked = bot.respond(&json!({"cmd": "puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab"}));
    let moves = asked["puzzle"]["moves"].as_array().unwrap().clone();
    let verdicts: Vec<Value> = moves
        .iter()
        .map(|mv| {
            bot.respond(
                &json!({"cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab", "move": mv}),
            )
        })
        .collect();
    let right: Vec<&Value> = verdicts.iter().filter(|v| v["correct"] == true).collect();
    assert_eq!(right.len(), 1, "{verdicts:?}");
    let best = right[0];
    assert_eq!(best["loss_pp"], 0.0);
    assert!(best["explanation"].as_str().unwrap().starts_with("Correct"));
    assert_eq!(best["best"], best["move"]);
    for wrong in verdicts.iter().filter(|v| v["correct"] == false) {
        let loss = wrong["loss_pp"].as_f64().unwrap();
        assert!(
            loss >= wrong["margin_pp"].as_f64().unwrap() - 1e-9,
            "{wrong}"
        );
        assert!(
            wrong["explanation"]
                .as_str()
                .unwrap()
                .starts_with("Not this one")
        );
        assert!(!wrong["themes"].as_array().unwrap().is_empty());
    }
}

#[test]
fn bad_puzzle_requests_are_refused_by_kind() {
    let bot = bot();
    let cases = [
        (json!({"cmd": "puzzle", "rules": "ur"}), "missing_field"),
        (
            json!({"cmd": "puzzle", "date": "2026-12-05"}),
            "missing_field",
        ),
        (
            json!({"cmd": "puzzle", "rules": "chess", "date": "2026-12-05"}),
            "unknown_rules",
        ),
        (
            json!({"cmd": "puzzle", "rules": "ur", "date": "2026-02-30"}),
            "invalid_field",
        ),
        (
            json!({"cmd": "puzzle", "rules": "ur", "puzzle": "ur-00000000"}),
            "invalid_field",
        ),
        (
            json!({"cmd": "puzzle", "rules": "ur", "puzzle": 7}),
            "invalid_field",
        ),
        (
            json!({"cmd": "puzzle", "rules": "ur", "rating": "hard"}),
            "invalid_field",
        ),
        (
            json!({"cmd": "puzzle", "rules": "ur", "rating": 500, "seed": -1}),
            "invalid_field",
        ),
        (
            json!({"cmd": "puzzle", "rules": "ur-2", "rating": 500}),
            "unsupported",
        ),
        (
            json!({"cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab"}),
            "missing_field",
        ),
        (
            json!({"cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab", "move": {"from": 1, "to": 5}}),
            "invalid_field",
        ),
    ];
    for (request, expected) in cases {
        let answer = bot.respond(&request);
        assert_eq!(kind(&answer), expected, "{request} gave {answer}");
    }
    // Without models there are no puzzles, and the bot says why.
    let bare = Bot::new(Registry::new());
    let answer = bare.respond(&json!({"cmd": "puzzle", "rules": "ur", "date": "2026-12-05"}));
    assert_eq!(kind(&answer), "unsupported");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no models")
    );
}
