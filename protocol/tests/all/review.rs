//! `review` and `hint` through the protocol: the reference chosen as
//! documented (a named bot; else the default table, exact; else hard one
//! ply deeper), values that are the table's, the strength from the
//! manifest's calibration points, and bad requests refused by kind.

use sawah_agents::manifest::Models;
use sawah_agents::perfect::move_value;
use sawah_agents::table::{Table, TableInfo, ValueType, write_table};
use sawah_engine::DiceSource;
use sawah_engine::race::{self, RuleSet};
use sawah_engine::record::replay;
use sawah_engine::registry::Registry;

use sawah_protocol::Bot;
use serde_json::{Value, json};
use std::sync::Arc;

/// A table for ur-2 (any values of the right count make a valid one; two
/// pieces, so there are choices), its bytes held by the bot as its default
/// table, with a manifest whose calibration points cover ur-2; and the
/// same bot without the table.
fn bot_with_table() -> (Bot, RuleSet, Table) {
    let (bot, _, rules, table) = bots();
    (bot, rules, table)
}

fn bots() -> (Bot, Bot, RuleSet, Table) {
    let rules = race::preset("ur-2").unwrap();
    let index = race::PositionIndex::new(&rules);
    // One folder per call: the tests run at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "sawah-protocol-review-{}-{call}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ur-2.sawah");
    let values: Vec<f64> = (0..index.len()).map(|i| (i % 89) as f64 / 88.0).collect();
    let info = TableInfo {
        states: index.len(),
        residual: 0.0,
        tolerance: 0.0,
        value_type: ValueType::F32,
    };
    write_table(&path, &rules, &values, &info).unwrap();
    let bytes: Arc<[u8]> = std::fs::read(&path).unwrap().into();
    std::fs::remove_dir_all(&dir).unwrap();
    let manifest = json!({
        "format": "sawah-models", "format_version": 1,
        "levels": [{"rules": "ur-2", "level": "easy", "spec": "heuristic",
                    "measured": {"elo": 300, "loss_per_move": 0.05, "loss_per_move_by_reference": 0.04}}],
        "anchors": [{"rules": "ur-2", "agent": "random", "elo": 0, "loss_per_move": 0.1,
                     "loss_per_move_by_reference": 0.09},
                    {"rules": "ur-2", "agent": "perfect", "elo": 600, "loss_per_move": 0.0}]
    });
    let models = Models::from_bytes(
        manifest.to_string().as_bytes(),
        "manifest.json",
        |name, _limit| Err(format!("no file {name}")),
    )
    .unwrap();
    let without = Bot::new(Registry::new())
        .with_models(Some(models.clone()))
        .unwrap();
    let mut bot = Bot::new(Registry::new())
        .with_models(Some(models))
        .unwrap()
        .with_table(Some("ur-2.sawah".to_string()));
    bot.assets_mut()
        .add_table_bytes("ur-2.sawah", bytes.clone());
    let table = Table::from_bytes(bytes, "ur-2.sawah", &rules).unwrap();
    (bot, without, rules, table)
}

/// A random game of `rules`, as tokens.
fn random_game(rules: &RuleSet, seed: u64) -> Vec<String> {
    let mut dice = DiceSource::from_seed(seed);
    let mut position = rules.start();
    let mut tokens = Vec::new();
    while rules.winner(&position).is_none() {
        let roll = dice.roll(rules.dice());
        let moves = rules.legal_moves(&position, roll);
        let mv = (!moves.is_empty()).then(|| moves[dice.below(moves.len())]);
        tokens.push(sawah_engine::record::move_token(rules, roll, mv));
        position = match mv {
            Some(mv) => rules.apply(&position, mv).position,
            None => rules.pass(&position),
        };
    }
    tokens
}

/// A side's strength: an estimate with its range from enough decisions,
/// else the whole scale and a sentence saying there are too few.
fn assert_strength(summary: &serde_json::Value) {
    let strength = &summary["strength"];
    let text = strength["text"].as_str().unwrap();
    let (low, elo, high) = (
        strength["low"].as_f64().unwrap(),
        strength["elo"].as_f64().unwrap(),
        strength["high"].as_f64().unwrap(),
    );
    if summary["decisions"].as_u64().unwrap() < sawah_agents::strength::MIN_DECISIONS {
        assert!(text.contains("too few decisions"), "{summary}");
        assert!(high - low >= 600.0, "the whole scale: {summary}");
    } else {
        assert!(text.contains("played like about"), "{summary}");
        assert!(
            (0.0..=600.0).contains(&elo) && low <= elo && elo <= high,
            "{strength}"
        );
    }
}

#[test]
fn a_review_against_the_default_table_is_exact_and_gives_the_strength() {
    let (bot, rules, table) = bot_with_table();
    let moves = random_game(&rules, 4);
    let answer = bot.respond(&json!({"cmd":"review","game":{"rules":"ur-2","moves":moves},"id":1}));
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["exact"], true, "{answer}");
    assert_eq!(
        answer["reference"],
        "perfect play by the solved table ur-2.sawah (exact)"
    );
    let turns = answer["turns"].as_array().unwrap();
    assert_eq!(turns.len(), moves.len());
    // Every move's value is the table's.
    let mut k = 0;
    replay(&rules, &moves, |step| {
        if let Some(mv) = step.played {
            let expected = move_value(&rules, &table, step.position, mv);
            assert_eq!(
                turns[k]["value_played"].as_f64(),
                Some(expected),
                "turn {}",
                k + 1
            );
        }
        k += 1;
    })
    .unwrap();
    for side in ["light", "dark"] {
        assert_strength(&answer[side]);
    }
    // A game long enough for a strength on at least one side.
    let long = (0..200)
        .map(|seed| {
            let moves = random_game(&rules, seed);
            bot.respond(&json!({"cmd":"review","game":{"rules":"ur-2","moves":moves}}))
        })
        .find(|review| {
            ["light", "dark"].iter().any(|side| {
                review[side]["decisions"].as_u64().unwrap() >= sawah_agents::strength::MIN_DECISIONS
            })
        })
        .expect("a random ur-2 game with 20 decisions on a side");
    for side in ["light", "dark"] {
        assert_strength(&long[side]);
    }
    // The same game named by the table explicitly gives the same review.
    let named = bot.respond(
        &json!({"cmd":"review","game":{"rules":"ur-2","moves":moves},"bot":"perfect","id":1}),
    );
    assert_eq!(named, answer);
    // Another reference is not exact: no strength.
    let heuristic = bot
        .respond(&json!({"cmd":"review","game":{"rules":"ur-2","moves":moves},"bot":"heuristic"}));
    assert_eq!(heuristic["exact"], false);
    assert_eq!(heuristic["reference"], "heuristic");
    assert!(heuristic["light"].get("strength").is_none(), "{heuristic}");
}

#[test]
fn without_a_table_the_strength_comes_from_the_scale_measured_by_the_default_reference() {
    let (_, without, rules, _) = bots();
    let moves = random_game(&rules, 6);
    let answer = without.respond(&json!({"cmd":"review","game":{"rules":"ur-2","moves":moves}}));
    assert_eq!(answer["exact"], false, "{answer}");
    let strength = &answer["light"]["strength"];
    let elo = strength["elo"]
        .as_f64()
        .unwrap_or_else(|| panic!("{answer}"));
    // The reference scale's points: random 0 at 9 pp, easy 300 at 4 pp.
    let loss = answer["light"]["mean_loss_pp"].as_f64().unwrap();
    let expected = if loss >= 9.0 {
        0.0
    } else if loss <= 4.0 {
        300.0
    } else {
        300.0 * (9.0 - loss) / 5.0
    };
    assert!((elo - expected).abs() < 1e-6, "{elo} for {loss} pp");
    // A reference the request names has no scale.
    let named = without
        .respond(&json!({"cmd":"review","game":{"rules":"ur-2","moves":moves},"bot":"heuristic"}));
    assert!(named["light"].get("strength").is_none(), "{named}");
}

#[test]
fn without_a_table_hard_reviews_one_ply_deeper() {
    let models =
        Models::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")).unwrap();
    let bot = Bot::new(Registry::new())
        .with_models(Some(models.clone()))
        .unwrap();
    let answer =
        bot.respond(&json!({"cmd":"review","game":{"rules":"senet","moves":["2:9-11","3:10-13"]}}));
    let reference = answer["reference"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        reference.starts_with("hard searching 2 plies"),
        "{reference}"
    );
    assert_eq!(answer["exact"], false);
    assert_eq!(answer["turns"].as_array().unwrap().len(), 2);
    assert_eq!(answer["winner"], Value::Null);
    // Masters' hard searches a third ply for its best two moves; the
    // reference stays at two plies over every move, to keep reviews quick.
    let answer =
        bot.respond(&json!({"cmd":"review","game":{"rules":"masters","moves":["2:0-2","3:0-3"]}}));
    let reference = answer["reference"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        reference.starts_with("hard searching 2 plies") && !reference.contains("focus"),
        "{reference}"
    );
    // A bound on depth never changes the reference: the review is the one
    // given without it, and a bound the levels or the reference break is
    // refused when the server starts.
    let capped = Bot::new(Registry::new())
        .with_models(Some(models.clone()))
        .unwrap()
        .with_max_depth(1);
    let review = json!({"cmd":"review","game":{"rules":"senet","moves":["2:9-11"]}});
    assert_eq!(capped.respond(&review), bot.respond(&review));
    let refused = capped.check_levels_within_depth().unwrap_err();
    assert!(
        refused.contains("deeper than --max-depth 1") && refused.contains("raise --max-depth"),
        "{refused}"
    );
    assert!(bot.check_levels_within_depth().is_ok());
    assert!(
        Bot::new(Registry::new())
            .with_models(Some(models))
            .unwrap()
            .with_max_depth(sawah_protocol::native::Limits::UNTRUSTED.max_depth)
            .check_levels_within_depth()
            .is_ok(),
        "the default bound of an untrusted bot fits every shipped level"
    );
}

#[test]
fn a_game_from_a_given_start_is_reviewed_from_there() {
    let (bot, rules, table) = bot_with_table();
    // Light has its piece on 3; dark to enter.
    let start = "ur-2 light 1/3/0 2/-/0";
    let position = rules
        .position_from_json(&sawah_engine::notation::parse(start).unwrap())
        .unwrap();
    let legal = rules.legal_moves(&position, 1);
    let token = sawah_engine::record::move_token(&rules, 1, Some(legal[0]));
    let answer =
        bot.respond(&json!({"cmd":"review","game":{"rules":"ur-2","start":start,"moves":[token]}}));
    let turn = &answer["turns"][0];
    assert_eq!(
        turn["value_played"].as_f64(),
        Some(move_value(&rules, &table, &position, legal[0])),
        "{answer}"
    );
}

#[test]
fn bad_reviews_are_refused_by_kind_and_named() {
    let (bot, _, _) = bot_with_table();
    for (request, kind, words) in [
        (json!({"cmd":"review"}), "missing_field", "game"),
        (
            json!({"cmd":"review","game":[1]}),
            "invalid_field",
            "a game record is an object",
        ),
        (
            json!({"cmd":"review","game":{"rules":"ur-2","moves":["1:0-1","3:0-9"]}}),
            "invalid_field",
            "move 2 (\"3:0-9\")",
        ),
        (
            json!({"cmd":"review","game":{"rules":"nowhere","moves":[]}}),
            "unknown_rules",
            "nowhere",
        ),
        (
            json!({"cmd":"review","game":{"rules":"ur-2","moves":["1:0-1"]},"bot":"random"}),
            "invalid_bot",
            "no win probabilities",
        ),
        (
            json!({"cmd":"review","game":{"rules":"ur-2","start":"senet light 0/1,3,5,7,9/0 0/2,4,6,8,10/0","moves":[]}}),
            "invalid_field",
            "\"start\"",
        ),
        (
            json!({"cmd":"review","game":{"rules":"ur-2","moves":vec!["0:pass"; 5001]}}),
            "too_large",
            "5001 turns",
        ),
        // (A hint without a roll is the roll table, not an error.)
        (
            json!({"cmd":"hint","position":"ur-2 light 2/-/0 2/-/0","roll":7}),
            "invalid_roll",
            "7",
        ),
    ] {
        let answer = bot.respond(&request);
        assert_eq!(answer["error"]["kind"], kind, "{request}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{request}: {message}");
    }
}

#[test]
fn a_hint_ranks_the_table_s_values_and_tags_the_moves() {
    let (bot, rules, table) = bot_with_table();
    let mut dice = DiceSource::from_seed(9);
    let mut position = rules.start();
    let mut hinted = 0;
    for _ in 0..200 {
        if rules.winner(&position).is_some() {
            position = rules.start();
        }
        let roll = dice.roll(rules.dice());
        let moves = rules.legal_moves(&position, roll);
        let json = serde_json::to_value(rules.position_to_json(&position)).unwrap();
        let answer = bot.respond(&json!({"cmd":"hint","position":json,"roll":roll}));
        let ranked = answer["moves"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"));
        assert_eq!(ranked.len(), moves.len());
        let values: Vec<f64> = ranked
            .iter()
            .map(|m| m["value"].as_f64().unwrap())
            .collect();
        assert!(
            values.windows(2).all(|w| w[0] >= w[1]),
            "best first: {values:?}"
        );
        for entry in ranked {
            let mv = *moves
                .iter()
                .find(|m| {
                    rules.move_to_json(**m)["to"] == entry["to"]
                        && rules.move_to_json(**m)["from"] == entry["from"]
                })
                .unwrap();
            assert_eq!(
                entry["value"].as_f64(),
                Some(move_value(&rules, &table, &position, mv))
            );
            let tags: Vec<&str> = entry["tags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert_eq!(tags.contains(&"enters"), mv.from == 0, "{entry}");
            assert_eq!(entry["words"].as_array().unwrap().len(), tags.len());
            hinted += 1;
        }
        position = if moves.is_empty() {
            rules.pass(&position)
        } else {
            rules
                .apply(&position, moves[dice.below(moves.len())])
                .position
        };
    }
    assert!(hinted > 50);
}

#[test]
fn a_hint_without_a_roll_is_the_roll_table_of_the_hints_best_moves() {
    let (bot, rules, _) = bot_with_table();
    let moves = random_game(&rules, 9);
    let mut checked = 0;
    replay(&rules, &moves, |step| {
        if checked >= 10 {
            return;
        }
        checked += 1;
        let position = sawah_engine::Codec::position_to_json(&rules, step.position);
        let answer = bot.respond(&json!({"cmd": "hint", "position": position}));
        assert_eq!(answer["exact"], true, "{answer}");
        let rolls = answer["rolls"].as_array().unwrap();
        assert_eq!(rolls.len(), rules.dice().outcomes().count());
        let mut mean = 0.0;
        for (row, (roll, p)) in rolls.iter().zip(rules.dice().outcomes()) {
            assert_eq!(row["roll"], roll);
            assert_eq!(row["probability"].as_f64(), Some(p));
            // Each roll's value is the table's best move (or the pass).
            let hinted = bot.respond(&json!({"cmd": "hint", "position": position, "roll": roll}));
            let best = hinted["moves"][0]["value"].as_f64();
            if let Some(best) = best {
                assert_eq!(row["value"].as_f64(), Some(best), "{row}");
                assert_eq!(row["move"]["from"], hinted["moves"][0]["from"]);
            } else {
                assert_eq!(row["move"], "pass", "{row}");
            }
            mean += p * row["value"].as_f64().unwrap();
        }
        // Their weighted mean is the position's value before the roll (this
        // fixture's table holds arbitrary values, so it is not the table's
        // own value of the position, as a solved table's would be).
        let value = answer["value"].as_f64().unwrap();
        assert!((value - mean).abs() < 1e-12);
    })
    .unwrap();
    assert_eq!(checked, 10);
}
