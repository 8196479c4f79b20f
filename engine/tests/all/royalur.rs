//! RoyalUr's variants (`blitz`, `aseb`, `masters-3dice`): their
//! parameters, a capture's extra roll in Blitz (and nowhere else), the
//! three dice where 0 counts 4, and the rule-file field that says so.
//! Move for move, `python/tests/test_royalur.py` checks them against
//! RoyalUr's own implementation.

use crate::common::pos;
use sawah_engine::Player::{Dark, Light};
use sawah_engine::race::{self, Move, RuleSpec};

/// A variant's parameters: name, pieces, route squares, rosettes, safe,
/// whether a capture gives a roll, the dice.
type Expected<'a> = (&'a str, u8, u8, &'a [u8], bool, bool, &'a [f64]);

#[test]
fn the_variants_have_royalur_s_parameters() {
    let sticks = [1.0 / 16.0, 0.25, 0.375, 0.25, 1.0 / 16.0];
    let three = [0.0, 0.375, 0.375, 0.125, 0.125];
    let expect: [Expected; 3] = [
        ("blitz", 5, 16, &[4, 8, 12, 16], false, true, &sticks),
        ("aseb", 5, 16, &[4, 8, 12, 16], true, false, &sticks),
        (
            "masters-3dice",
            7,
            16,
            &[4, 8, 12, 16],
            false,
            false,
            &three,
        ),
    ];
    assert_eq!(race::ROYALUR_RULE_SETS.len(), expect.len());
    for (name, pieces, len, marks, safe, capture_roll, dice) in expect {
        let rules = race::preset(name).unwrap();
        assert_eq!(rules.pieces(), pieces, "{name}");
        assert_eq!(rules.route_len(), len, "{name}");
        let marked: Vec<u8> = (1..=len)
            .filter(|&s| rules.is_marked_square(Light, s))
            .collect();
        assert_eq!(marked, marks, "{name}");
        assert_eq!(rules.marks_are_safe(), safe, "{name}");
        assert!(rules.marks_give_extra_roll(), "{name}");
        assert_eq!(rules.captures_give_extra_roll(), capture_roll, "{name}");
        assert_eq!(rules.dice().probabilities(), dice, "{name}");
    }
    // Blitz and masters-3dice take the Masters route; Aseb the Egyptian one.
    let route = |name: &str| race::preset(name).unwrap().spec().light_route.clone();
    assert_eq!(route("blitz"), route("masters"));
    assert_eq!(route("masters-3dice"), route("masters"));
    assert_eq!(route("aseb"), route("sawah"));
}

#[test]
fn in_blitz_a_capture_gives_another_roll_and_nowhere_else() {
    for name in ["blitz", "masters-5", "aseb"] {
        let rules = race::preset(name).unwrap();
        let p = rules.pieces();
        // Light on 5 captures dark on 6 (a shared square, not a rosette).
        let position = pos(&rules, Light, (p - 1, &[5], 0), (p - 1, &[6], 0));
        let outcome = rules.apply(&position, Move { from: 5, to: 6 });
        assert!(outcome.captured, "{name}");
        let rolls_again = name == "blitz";
        assert_eq!(outcome.extra_roll, rolls_again, "{name}");
        assert_eq!(
            outcome.position.turn(),
            if rolls_again { Light } else { Dark },
            "{name}"
        );
        // A move that captures nothing gives no roll off a rosette.
        let quiet = rules.apply(&position, Move { from: 5, to: 7 });
        assert!(!quiet.captured && !quiet.extra_roll, "{name}");
        // Bearing off never gives a roll.
        let home = pos(&rules, Light, (p - 1, &[15], 0), (p, &[], 0));
        assert!(
            !rules.apply(&home, Move { from: 15, to: 17 }).extra_roll,
            "{name}"
        );
    }
    // Blitz's rosettes are not safe: a capture on the shared rosette (8)
    // gives one roll, not two.
    let blitz = race::preset("blitz").unwrap();
    let on_rosette = pos(&blitz, Light, (4, &[6], 0), (4, &[8], 0));
    let outcome = blitz.apply(&on_rosette, Move { from: 6, to: 8 });
    assert!(outcome.captured && outcome.extra_roll);
    // The hint's words say "rolls again", not "lands on a rosette".
    let tags = sawah_engine::tags::Describe::describe(
        &blitz,
        &pos(&blitz, Light, (4, &[5], 0), (4, &[6], 0)),
        Move { from: 5, to: 6 },
    );
    assert!(tags.words.contains(&"rolls again"), "{:?}", tags.words);
}

#[test]
fn three_dice_never_roll_zero() {
    let rules = race::preset("masters-3dice").unwrap();
    let mut dice = sawah_engine::DiceSource::from_seed(3);
    let mut counts = [0u32; 5];
    for _ in 0..80_000 {
        counts[usize::from(dice.roll(rules.dice()))] += 1;
    }
    assert_eq!(counts[0], 0);
    for (roll, expected) in [(1, 0.375), (2, 0.375), (3, 0.125), (4, 0.125)] {
        let share = f64::from(counts[roll]) / 80_000.0;
        assert!((share - expected).abs() < 0.01, "roll {roll}: {share}");
    }
    assert!(rules.legal_moves(&rules.start(), 0).is_empty());
}

#[test]
fn a_rule_file_says_a_capture_gives_another_roll() {
    let mut spec = race::preset_spec("masters-5").unwrap();
    spec.name = "my-blitz".into();
    let plain = serde_json::to_value(&spec).unwrap();
    assert!(
        plain.get("capture_extra_roll").is_none(),
        "left out when false"
    );
    spec.capture_extra_roll = true;
    let text = serde_json::to_string(&spec).unwrap();
    assert!(text.contains("\"capture_extra_roll\":true"));
    let read: RuleSpec = serde_json::from_str(&text).unwrap();
    assert_eq!(read, spec);
    let rules = race::RuleSet::new(read).unwrap();
    assert!(rules.captures_give_extra_roll());
    let toml_text = "name = \"t\"\npieces = 2\nboard = [[0,0],[1,0],[2,0]]\nlight_route = [[0,0],[1,0]]\ndice = [0.5, 0.5]\ncapture_extra_roll = true\n[marks]\ncells = []\nextra_roll = false\nsafe = false\n";
    let from_toml: RuleSpec = toml::from_str(toml_text).unwrap();
    assert!(from_toml.capture_extra_roll);
}
