use super::*;
use crate::dice::DiceSource;
use crate::race::{self, preset};
use proptest::prelude::*;
use serde_json::json;

/// A random game of `rules` (seeded) as record tokens, at most `plies`
/// rolls long.
fn random_game(rules: &RuleSet, seed: u64, plies: usize) -> Vec<String> {
    let mut dice = DiceSource::from_seed(seed);
    let mut position = rules.start();
    let mut tokens = Vec::new();
    while rules.winner(&position).is_none() && tokens.len() < plies {
        let roll = dice.roll(rules.dice());
        let legal = rules.legal_moves(&position, roll);
        if legal.is_empty() {
            tokens.push(move_token(rules, roll, None));
            position = rules.pass(&position);
        } else {
            let mv = legal[dice.below(legal.len())];
            tokens.push(move_token(rules, roll, Some(mv)));
            position = rules.apply(&position, mv).position;
        }
    }
    tokens
}

fn tags(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn owned(list: &[&str]) -> Vec<String> {
    list.iter().map(|t| t.to_string()).collect()
}

/// Light enters with 4 onto its rosette (A1) and rolls again, enters with
/// 2; dark passes a 0; light moves 1; dark enters onto its rosette (C1)
/// and moves on to B3; light captures it there from A1 with 3.
const SHORT: [&str; 7] = [
    "4:0-4", "2:0-2", "0:pass", "1:2-3", "4:0-4", "3:4-7", "3:4-7",
];
const SHORT_RGN: &str =
    "[Rules ur]\n[Light hard]\n\n1. A@A1 * A@A3 / 0 --\n2. A3A2 / C@C1 * C1B3\n3. A1B3x";

#[test]
fn a_short_game_is_written_as_royalur_writes_it_and_read_back() {
    let ur = preset("ur").unwrap();
    let tags = tags(&[("Rules", "ur"), ("Light", "hard")]);
    let text = write(&ur, &tags, &owned(&SHORT)).unwrap();
    assert_eq!(text, SHORT_RGN);
    let game = read(&ur, &text).unwrap();
    assert_eq!(game.moves, owned(&SHORT));
    assert_eq!(game.tags, tags);
    assert_eq!(game.tag("Light"), Some("hard"));
    assert_eq!(rules_name(&text).unwrap(), "ur");
}

#[test]
fn the_end_of_a_game_is_marked_and_long_turns_break() {
    // Every rule set, a finished random game: '#' on the last action only,
    // and no line of a turn longer than RoyalUr's 60 characters unless one
    // action alone is.
    for name in race::all_preset_names() {
        let rules = preset(name).unwrap();
        let tokens = random_game(&rules, 7, 100_000);
        let text = write(&rules, &[], &tokens).unwrap();
        assert!(text.ends_with('#'), "{name}: {text}");
        assert_eq!(text.matches('#').count(), 1, "{name}");
        assert!(text.lines().all(|l| l.len() < 60 + 12), "{name}: {text}");
        assert_eq!(read(&rules, &text).unwrap().moves, tokens, "{name}");
    }
}

#[test]
fn tags_are_quoted_where_rgn_needs_it() {
    assert_eq!(escape("hard"), "hard");
    assert_eq!(escape("masters-3dice"), "masters-3dice");
    assert_eq!(escape("0.5"), "\"0.5\"");
    assert_eq!(escape(""), "\"\"");
    assert_eq!(escape("a \"b\"\\\n"), "\"a \\\"b\\\"\\\\\\n\"");
    let ur = preset("ur").unwrap();
    let odd = tags(&[
        ("Rules", "ur"),
        ("Start Time", "2026-12-05T18:00:00Z"),
        ("Note", "line one\nline \"two\" \\ end\r"),
        ("Empty", ""),
    ]);
    let text = write(&ur, &odd, &owned(&SHORT)).unwrap();
    assert_eq!(read_tags(&text).unwrap(), odd);
}

#[test]
fn bad_rgn_is_refused_with_the_place_and_reason() {
    let ur = preset("ur").unwrap();
    for (text, expected) in [
        (
            "[Rules ur]\n\n1. A@A1 * A@A3 / 0",
            "a roll alone is followed by",
        ),
        (
            "[Rules ur]\n\n1. A@A1 * A@A3 / 0 xx",
            "a roll alone is followed by",
        ),
        ("[Rules ur]\n\n1. Z9Q", "not an RGN action"),
        ("[Rules ur]\n\n1. A@B1", "which the dice cannot show"),
        (
            "[Rules ur]\n\n1. A@A4 / 0 --\n2. A@A4",
            "not a legal move for light here",
        ),
        ("[Rules ur]\n\n1. A@A4 / C@C4 A3A4", "goes backwards"),
        ("[Rules ur]\n\n1. A@A1", "not marked *"),
        ("[Rules ur]\n\n1. A@A3 *", "does not end on one"),
        ("[Rules ur]\n\n1. A@A3x", "captures nothing"),
        ("[Rules ur]\n\n1. A@A3#", "the game goes on"),
        (
            "[Rules ur]\n\n1. 0 -- / 3 --",
            "dark had a legal move with 3",
        ),
        ("[Rules ur]\n\n1. 5 --", "the dice cannot show 5"),
        ("[Rules ur]\n\n1. * A@A3", "follows no move"),
        ("[Rules ur]\n\n1. A5A6", "A5 is not on light's route"),
        ("[Rules ur\n\n1. A@A3", "line 1"),
        ("[Rules \"ur]\n\n1. A@A3", "no closing quote"),
        ("[Rules \"u\\qr\"]\n\n1. A@A3", "unknown escape"),
        ("[Rules ur extra]\n", "follows the value"),
    ] {
        let err = read(&ur, text).unwrap_err().to_string();
        assert!(err.contains(expected), "{text:?}: {err}");
    }
    assert_eq!(rules_name("1. A@A3").unwrap_err(), RgnError::NoRules);
    let over = format!("{SHORT_RGN} A1B3");
    assert!(read(&ur, &over).is_err());
}

#[test]
fn capture_marks_follow_the_rule_set() {
    // Blitz: a capture gives another roll, so the capturing turn goes on.
    let blitz = preset("blitz").unwrap();
    let tokens = random_game(&blitz, 11, 100_000);
    let text = write(&blitz, &[], &tokens).unwrap();
    assert!(text.contains('x'), "{text}");
    assert_eq!(read(&blitz, &text).unwrap().moves, tokens);
}

/// What an edit of a game's text inserts: its own alphabet, and bytes it
/// never holds.
const EDIT_CHARS: [char; 16] = [
    '[', ']', '"', '\\', ' ', '\n', '.', '1', '4', 'A', 'x', '#', '*', '-', '\u{1b}', 'é',
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("SAWAH_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256)
    ))]

    /// Any prefix of any random game, on every race rule set, reads back
    /// as written, and writes again to the same text.
    #[test]
    fn rgn_round_trips(seed in any::<u64>(), plies in 0usize..400, which in 0usize..64) {
        let names: Vec<&str> = race::all_preset_names().collect();
        let name = names[which % names.len()];
        let rules = preset(name).unwrap();
        let tokens = random_game(&rules, seed, plies);
        let tags = tags(&[("Rules", name), ("Seed", &seed.to_string())]);
        let text = write(&rules, &tags, &tokens).unwrap();
        let game = read(&rules, &text).unwrap();
        prop_assert_eq!(&game.moves, &tokens);
        prop_assert_eq!(&game.tags, &tags);
        prop_assert_eq!(write(&rules, &game.tags, &game.moves).unwrap(), text);
    }

    /// A written game with characters deleted, inserted or replaced, or a
    /// line repeated, is read or refused with a message, never a panic;
    /// a game that is read writes out and reads back as the same moves.
    #[test]
    fn any_edit_of_a_game_is_read_or_refused(
        seed in any::<u64>(),
        plies in 0usize..200,
        edits in prop::collection::vec((0usize..4, any::<prop::sample::Index>(), prop::sample::select(EDIT_CHARS.to_vec())), 1..6),
    ) {
        let ur = preset("ur").unwrap();
        let tokens = random_game(&ur, seed, plies);
        let text = write(&ur, &tags(&[("Rules", "ur")]), &tokens).unwrap();
        let mut chars: Vec<char> = text.chars().collect();
        for (kind, at, c) in edits {
            let at = at.index(chars.len() + 1);
            match kind {
                0 if at < chars.len() => { chars.remove(at); }
                1 => chars.insert(at, c),
                2 if at < chars.len() => chars[at] = c,
                _ => {
                    let line: String = chars.iter().collect::<String>().lines().nth(at % 4).unwrap_or("").to_string();
                    chars.extend(format!("\n{line}").chars());
                }
            }
        }
        let edited: String = chars.into_iter().collect();
        match read(&ur, &edited) {
            Ok(game) => {
                let again = write(&ur, &game.tags, &game.moves).unwrap();
                prop_assert_eq!(read(&ur, &again).unwrap().moves, game.moves);
            }
            Err(error) => prop_assert!(!error.to_string().is_empty()),
        }
        let _ = read_tags(&edited);
    }

    /// Arbitrary text never panics the reader.
    #[test]
    fn any_text_is_read_or_refused(text in "[\\[\\]A-Ca-c@+x#*/0-9. \"\\\\\n-]{0,80}") {
        let ur = preset("ur").unwrap();
        let _ = read(&ur, &text);
        let _ = read_tags(&text);
    }
}

#[test]
fn records_and_rgn_convert_both_ways() {
    let registry = Registry::new();
    let record = json!({"rules":"ur","light":"hard","dark":"easy","pair":3,"seed":42,
        "winner":null,"moves":SHORT});
    let text = from_record(&registry, &record).unwrap();
    assert!(
        text.starts_with(
            "[Rules ur]\n[Light hard]\n[Dark easy]\n[Pair \"3\"]\n[Seed \"42\"]\n\n1. A@A1 *"
        ),
        "{text}"
    );
    let back = to_record(&registry, &text).unwrap();
    assert_eq!(back["moves"], json!(SHORT));
    assert_eq!(
        (back["light"].as_str(), back["dark"].as_str()),
        (Some("hard"), Some("easy"))
    );
    assert_eq!(from_record(&registry, &back).unwrap(), text);
    for (record, expected) in [
        (json!({"rules":"senet","moves":[]}), "Senet"),
        (json!({"rules":"nope","moves":[]}), "nope"),
        (
            json!({"rules":"ur","moves":["2:0-2"],"start":"x"}),
            "start position",
        ),
        (
            json!({"rules":"ur","moves":[],"tags":[["Rules","blitz"]]}),
            "\"blitz\"",
        ),
        (
            json!({"rules":"ur","moves":[],"tags":[["Rules"]]}),
            "[KEY, VALUE]",
        ),
        (json!({"rules":"ur","moves":["9:9-9"]}), "does not replay"),
    ] {
        let err = from_record(&registry, &record).unwrap_err().to_string();
        assert!(err.contains(expected), "{record}: {err}");
    }
    let err = to_record(&registry, "[Rules senet]\n\n1. 0 --").unwrap_err();
    assert!(err.to_string().contains("Senet"), "{err}");
}

#[test]
fn an_unknown_word_is_quoted_short_and_escaped() {
    let word = "Z".repeat(1_000_000);
    let text = format!("[Rules \"ur\"]\n\n1. \u{1b}[2J{word}");
    let registry = crate::registry::Registry::new();
    let error = crate::rgn::to_record(&registry, &text)
        .unwrap_err()
        .to_string();
    assert!(error.len() < 1_000, "{} bytes", error.len());
    assert!(error.contains("more characters"), "{error}");
    assert!(!error.contains('\u{1b}'));
}

#[test]
fn absurd_tags_are_refused_naming_the_limit() {
    let registry = crate::registry::Registry::new();
    let many: String = (0..2_000).map(|k| format!("[T{k} \"v\"]\n")).collect();
    let text = format!("[Rules \"ur\"]\n{many}\n1. A@A3");
    let error = crate::rgn::to_record(&registry, &text)
        .unwrap_err()
        .to_string();
    assert!(error.contains("more than 1000 tags"), "{error}");
    let long = format!(
        "[Rules \"ur\"]\n[Note \"{}\"]\n\n1. A@A3",
        "x".repeat(10_000)
    );
    let error = crate::rgn::to_record(&registry, &long)
        .unwrap_err()
        .to_string();
    assert!(error.contains("a tag line has at most 4096"), "{error}");
}
