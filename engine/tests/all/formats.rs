//! JSON positions and the text notation: round trips and robustness.

use crate::common::random_position;
use proptest::prelude::*;
use sawah_engine::{
    AnyGame, Codec, DiceSource,
    race::{Position, RuleSet},
};
use std::sync::Arc;

/// Parses and validates a race position from outside.
fn race_position(value: &serde_json::Value) -> Result<(Arc<RuleSet>, Position), String> {
    let (game, json) = registry()
        .parse_position(value)
        .map_err(|e| e.to_string())?;
    let AnyGame::Race(rules) = game else {
        return Err("not a race rule set".into());
    };
    let position = Codec::position_from_json(&*rules, &json).map_err(|e| e.to_string())?;
    Ok((rules, position))
}
use sawah_engine::json::PositionJson;
use sawah_engine::notation;
use sawah_engine::race;
use sawah_engine::registry::Registry;

fn registry() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(Registry::new)
}

#[test]
fn json_matches_the_design_example() {
    let text = r#"{"rules":"sawah","turn":"light","light":{"waiting":3,"scored":1,"squares":[1,5,9]},"dark":{"waiting":7,"scored":0,"squares":[]}}"#;
    let (rules, position) = race_position(&serde_json::from_str(text).unwrap()).unwrap();
    assert_eq!(rules.name(), "sawah");
    assert_eq!(
        serde_json::to_string(&rules.position_to_json(&position)).unwrap(),
        text
    );
    assert_eq!(
        notation::format(&rules.position_to_json(&position)),
        "sawah light 3/1,5,9/1 7/-/0"
    );
}

#[test]
fn squares_may_come_in_any_order_and_are_written_ascending() {
    let text = r#"{"rules":"ur","turn":"dark","light":{"waiting":4,"scored":0,"squares":[9,1,5]},"dark":{"waiting":7,"scored":0,"squares":[]}}"#;
    let (rules, position) = race_position(&serde_json::from_str(text).unwrap()).unwrap();
    assert_eq!(
        rules.position_to_json(&position).light.squares,
        vec![1, 5, 9]
    );
}

#[test]
fn unknown_fields_are_refused_by_name() {
    let text = r#"{"rules":"ur","turn":"dark","light":{"waiting":7,"scored":0,"squares":[],"colour":1},"dark":{"waiting":7,"scored":0,"squares":[]}}"#;
    let err = race_position(&serde_json::from_str(text).unwrap()).unwrap_err();
    assert!(err.to_string().contains("colour"), "{err}");
}

#[test]
fn malformed_positions_are_explained_in_plain_words() {
    let side = r#"{"waiting":7,"scored":0,"squares":[]}"#;
    let cases = [
        (
            format!(r#"{{"rules":"ur","turn":"light","light":{{"waiting":"x","scored":0,"squares":[]}},"dark":{side}}}"#),
            r#""light.waiting" must be a whole number from 0 to 7, not "x""#,
        ),
        (
            format!(r#"{{"rules":"ur","turn":"light","light":{side},"dark":{{"waiting":7,"scored":-1,"squares":[]}}}}"#),
            r#""dark.scored" must be a whole number from 0 to 7, not -1"#,
        ),
        (
            format!(r#"{{"rules":"ur","turn":"blue","light":{side},"dark":{side}}}"#),
            r#""turn" must be "light" or "dark", not "blue""#,
        ),
        (
            r#"{"rules":"ur","turn":"light"}"#.to_string(),
            r#"missing "light"; a position has "rules", "turn", "light" and "dark""#,
        ),
        (
            format!(r#"{{"rules":"ur","turn":"light","light":{{"waiting":7,"scored":0,"squares":[3,"a"]}},"dark":{side}}}"#),
            r#""light.squares" must be a list of square numbers from 1 to 14, not [3,"a"]"#,
        ),
        (
            r#"{"rules":"senet","turn":"light","light":{"scored":0},"dark":{"scored":0,"squares":[]}}"#.to_string(),
            r#"missing "squares" in "light"; a side has "scored" and "squares""#,
        ),
        (
            r#"[1,2]"#.to_string(),
            r#"a position is notation text or an object with "rules", "turn", "light" and "dark""#,
        ),
    ];
    for (text, expected) in cases {
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let err = registry().parse_position(&value).unwrap_err().to_string();
        assert_eq!(err, format!("malformed position: {expected}"), "{text}");
        for rust in ["u8", "struct", "variant", "invalid type"] {
            assert!(!err.contains(rust), "{err}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn arbitrary_json_positions_never_panic_and_are_explained(
        waiting in prop::sample::select(vec!["7", "-1", "300", "\"x\"", "null", "[]", "1.5"]),
        squares in prop::sample::select(vec!["[]", "[1,2]", "[0]", "[99]", "\"a\"", "{}", "[true]"]),
        turn in prop::sample::select(vec!["\"light\"", "\"dark\"", "1", "null"]),
        rules in prop::sample::select(vec!["\"ur\"", "\"senet\"", "\"x\"", "5"]),
    ) {
        let text = format!(r#"{{"rules":{rules},"turn":{turn},"light":{{"waiting":{waiting},"scored":0,"squares":{squares}}},"dark":{{"scored":0,"squares":[]}}}}"#);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        if let Err(err) = registry().parse_position(&value) {
            let err = err.to_string();
            prop_assert!(!err.contains("u8") && !err.contains("struct "), "{}", err);
        }
    }

    #[test]
    fn json_and_notation_round_trip(index in 0usize..15, seed in any::<u64>()) {
        let names: Vec<&str> = race::all_preset_names().collect();
        let rules = race::preset(names[index % names.len()]).unwrap();
        let position = random_position(&rules, &mut DiceSource::from_seed(seed));
        let json = rules.position_to_json(&position);
        let text = serde_json::to_string(&json).unwrap();
        let back: PositionJson = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(rules.position_from_json(&back).unwrap(), position);
        let line = notation::format(&json);
        let parsed = notation::parse(&line).unwrap();
        prop_assert_eq!(&parsed, &json);
        prop_assert_eq!(notation::format(&parsed), line.clone());
        let (_, again) = race_position(&serde_json::Value::String(line.clone())).unwrap();
        prop_assert_eq!(again, position);
    }

    #[test]
    fn arbitrary_text_never_panics_the_parsers(text in "\\PC{0,80}") {
        let _ = notation::parse(&text);
        let _ = registry().parse_position_text(&text);
    }

    #[test]
    fn notation_like_text_never_panics(
        rules in prop::sample::select(vec!["sawah", "ur", "masters", "ur-1", "x"]),
        turn in prop::sample::select(vec!["light", "dark", "l", "D", "?"]),
        sides in prop::collection::vec("[0-9]{1,3}/(-|[0-9]{1,3}(,[0-9]{1,3}){0,8})/[0-9]{1,3}", 2),
    ) {
        let line = format!("{rules} {turn} {} {}", sides[0], sides[1]);
        if let Ok(json) = notation::parse(&line) {
            // Formatting normalises (ascending squares); formatted text is a fixed point.
            let formatted = notation::format(&json);
            prop_assert_eq!(notation::format(&notation::parse(&formatted).unwrap()), formatted);
        }
        let _ = registry().parse_position_text(&line);
    }
}

/// The rule-set digests stored in results files, model files and tables:
/// pinned, so that a change to the export or to serde_json's features (map
/// order, number formatting) cannot silently orphan those files.
#[test]
fn rule_set_digests_are_the_stored_ones() {
    use sawah_engine::{Codec, Registry, with_game};
    let pinned = [
        ("sawah", "142e53deaafbadce"),
        ("babylon", "974fa035e194929c"),
        ("marks-roll-only", "13735cb1d2ee0844"),
        ("ur", "5d2c4e86ad2a748b"),
        ("masters", "777fdcf844516b31"),
        ("masters-5", "6ad346cb9737ac1d"),
        ("senet", "7abc33dd40e0a344"),
        ("blitz", "381b95e11630dabe"),
        ("aseb", "8cd4f91d9b0ae2ae"),
        ("masters-3dice", "0aee2c7c5ac269d3"),
        ("sawah-1", "4555808cfd8a6562"),
        ("sawah-2", "e1e8da70dac82704"),
        ("sawah-3", "93cafe2e7a646e06"),
        ("ur-1", "bb09d3f8e7e38de1"),
        ("ur-2", "0951bda55cd8b22b"),
        ("ur-3", "5d1d3b144bf4ede5"),
        ("masters-1", "6e89faaa4176af1d"),
        ("masters-2", "8b706fe95a0bb20f"),
        ("masters-3", "9da35678ba76996d"),
    ];
    let registry = Registry::new();
    assert_eq!(
        registry.games().len(),
        pinned.len(),
        "a digest pinned for every rule set"
    );
    for (name, digest) in pinned {
        let game = registry.get(name).unwrap();
        with_game!(&game, g => {
            assert_eq!(g.rules_digest(), digest, "{name}");
            // The text digested is the export a front end reads.
            let text = g.export_text();
            assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), g.export_json(), "{name}");
            // And it reads back as the typed record, of its own family.
            let typed: sawah_engine::export::RulesExport = serde_json::from_str(&text).unwrap();
            assert_eq!(typed, g.rules_export(), "{name}");
        });
    }
}

/// Arbitrary JSON for the game-record reader: objects with the record's
/// keys (and others), holding values of every shape.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        prop::sample::select(vec![
            "ur",
            "senet",
            "2:0-2",
            "0:pass",
            "3:1-4",
            "x",
            "",
            "ur light 7/-/0 7/-/0",
            "pass",
        ])
        .prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "rules", "moves", "turns", "start", "roll", "move", "from", "to", "light",
                    ]),
                    inner
                ),
                0..5
            )
            .prop_map(|fields| {
                serde_json::Value::Object(
                    fields
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    // SAWAH_FUZZ_CASES runs it longer by hand (docs/bots.md).
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("SAWAH_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
    ))]

    /// Any JSON is read as a game record or refused with a reason, never a
    /// panic; a record that is read replays or names the move that does not.
    #[test]
    fn any_json_is_a_record_or_is_refused_with_a_reason(value in json_value()) {
        match sawah_engine::record::Record::from_json(&value) {
            Ok(record) => {
                if let Some(rules) = race::preset(&record.rules)
                    && let Ok(start) = record.start_position(&rules)
                    && let Err(e) =
                        sawah_engine::record::replay_from(&rules, start, &record.moves, |_| {})
                {
                    prop_assert!(e.number >= 1 && e.number <= record.moves.len());
                }
            }
            Err(reason) => prop_assert!(!reason.to_string().is_empty()),
        }
    }
}
