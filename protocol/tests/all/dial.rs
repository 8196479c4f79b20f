//! The strength dial through the protocol: `"bot":"elo=N"` and
//! `{"elo":N}` play the rule set's model with the noise its dial gives for
//! N (between the levels' noises for an Elo between theirs), a strength at
//! or above hard's plays hard, and a bot without a dial says so.

use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use sawah_protocol::Bot;
use serde_json::json;
use std::path::Path;

fn shipped() -> Models {
    Models::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")).unwrap()
}

#[test]
fn elo_specs_resolve_through_the_dial() {
    let models = shipped();
    for dial in &models.manifest().dial {
        let rules = dial.rules.as_str();
        let level = |name: &str| {
            let entry = models.level(rules, name).unwrap();
            (entry.spec.clone(), entry.measured.elo.unwrap())
        };
        let noise_of = |spec: &str| {
            spec.split(':')
                .find_map(|o| o.strip_prefix("noise="))
                .map_or(0.0, |n| n.parse::<f64>().unwrap())
        };
        // The dial's spec at an Elo, in its text form.
        let dial_spec = |rules: &str, elo: f64| {
            models
                .dial(rules, elo)
                .unwrap()
                .map(|spec| spec.to_string())
        };
        let ((easy, easy_elo), (medium, medium_elo), (hard, hard_elo)) =
            (level("easy"), level("medium"), level("hard"));
        // At a level's Elo, the level's own noise.
        for (spec, elo) in [(&easy, easy_elo), (&medium, medium_elo)] {
            let dialled = dial_spec(rules, elo).unwrap();
            assert!(
                (noise_of(&dialled) - noise_of(spec)).abs() < 1e-4,
                "{rules}: {dialled} for {spec}"
            );
        }
        // Between easy and medium, a noise between theirs.
        let between = dial_spec(rules, (easy_elo + medium_elo) / 2.0).unwrap();
        let noise = noise_of(&between);
        assert!(
            noise < noise_of(&easy) && noise > noise_of(&medium),
            "{rules}: {between}"
        );
        // Hard's Elo and above play hard; far below, the noisiest point.
        let top = dial_spec(rules, hard_elo + 500.0).unwrap();
        let parse = |text: &str| sawah_agents::AgentSpec::parse(text, rules).unwrap();
        assert_eq!(parse(&top), parse(&hard), "{rules}: {top} plays as hard");
        let (low, _) = dial.range();
        assert_eq!(dial_spec(rules, low - 500.0), dial_spec(rules, low));
        // Well below easy: 150 Elo, or (Senet, whose whole scale is about
        // 215 Elo) half of easy's.
        assert!(
            low <= (easy_elo - 150.0).max(easy_elo / 2.0),
            "{rules}: the dial reaches well below easy ({low})"
        );
    }
}

#[test]
fn a_request_may_name_a_strength() {
    let bot = Bot::new(Registry::new())
        .with_models(Some(shipped()))
        .unwrap();
    let position = "ur light 5/2,6/0 6/7/0";
    for request_bot in [
        json!("elo=700"),
        json!("elo=700:seed=3"),
        json!({"elo": 700}),
        json!({"agent": "neural", "elo": 700, "seed": 3}),
    ] {
        let answer =
            bot.respond(&json!({"cmd":"choose","position":position,"roll":3,"bot":request_bot}));
        assert!(answer["move"].is_object(), "{request_bot}: {answer}");
    }
    let wrong = bot.respond(
        &json!({"cmd":"choose","position":position,"roll":3,"bot":{"agent":"heuristic","elo":700}}),
    );
    assert_eq!(wrong["error"]["kind"], "invalid_bot", "{wrong}");
    let nan =
        bot.respond(&json!({"cmd":"choose","position":position,"roll":3,"bot":{"elo":"high"}}));
    assert_eq!(nan["error"]["kind"], "invalid_bot", "{nan}");
    // Without the shipped models there is no dial, and the error says so.
    let bare = Bot::new(Registry::new());
    let answer =
        bare.respond(&json!({"cmd":"choose","position":position,"roll":3,"bot":"elo=700"}));
    assert_eq!(answer["error"]["kind"], "invalid_bot");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("strength dial"),
        "{answer}"
    );
    // A text strength that is not a number is named as such, with or without a dial.
    for bot in [
        &bare,
        &Bot::new(Registry::new())
            .with_models(Some(shipped()))
            .unwrap(),
    ] {
        let answer =
            bot.respond(&json!({"cmd":"choose","position":position,"roll":3,"bot":"elo=high"}));
        assert_eq!(answer["error"]["kind"], "invalid_bot", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("elo=high") && message.contains("a number"),
            "{answer}"
        );
    }
}
