//! Puzzles and the tutor in the terminal: `sawah puzzle` gives the puzzle
//! of the day that `tests/fixtures/daily-puzzles.json` records, explains
//! answers within 80 columns, and `sawah play --tutor` speaks up before a
//! costly move and lets the person keep it or choose again.

use crate::common::{assert_refused, scripted};
use sawah_cli::commands::play::game::{PlayOptions, play_game};
use sawah_engine::{Player, Registry, with_game};
use serde_json::Value;

fn fixture() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/daily-puzzles.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn models() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .display()
        .to_string()
}

#[test]
fn the_puzzle_of_the_day_is_the_recorded_one_and_its_answer_is_explained() {
    let fixture = fixture();
    let date = fixture["date"].as_str().unwrap();
    let models = models();
    for (rules, id) in fixture["ids"].as_object().unwrap() {
        let args = [
            "puzzle", "--rules", rules, "--daily", date, "--json", "--models", &models,
        ];
        let out = scripted(&args, "s\n");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap());
        assert_eq!(lines.next().unwrap()["puzzle"]["id"], *id, "{rules}");
        let verdict = lines.next().unwrap();
        assert_eq!(verdict["puzzle"], *id);
        assert!(verdict["explanation"].is_string());
        // Played in the terminal: every line within 80 columns.
        let args = [
            "puzzle", "--rules", rules, "--daily", date, "--models", &models,
        ];
        let out = scripted(&args, "9\n1\n2\n3\ns\n");
        let text = String::from_utf8(out.stdout)
            .unwrap()
            .replace("]: ", "]:\n");
        assert!(text.contains(id.as_str().unwrap()), "{text}");
        assert!(text.contains("\"9\" is not a move number"), "{text}");
        assert!(
            text.contains("Correct") || text.contains("The solution"),
            "{text}"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{rules}: {line:?}");
        }
    }
}

#[test]
fn a_series_near_a_rating_counts_what_was_solved() {
    let models = models();
    let out = scripted(
        &[
            "puzzle", "--rules", "ur", "--rating", "300", "--models", &models,
        ],
        "s\ns\nq\n",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("The solution").count(), 2, "{text}");
    assert!(text.contains("Solved 0."), "{text}");
    assert_refused(
        &[
            "puzzle",
            "--rules",
            "ur",
            "--daily",
            "2026-02-30",
            "--models",
            &models,
        ],
        "2026-02-30",
    );
    assert_refused(
        &[
            "puzzle",
            "--rules",
            "ur",
            "--daily",
            "2026-12-05",
            "--rating",
            "3",
        ],
        "cannot be used with",
    );
}

#[test]
fn the_tutor_speaks_up_before_a_costly_move_and_the_person_decides() {
    let mut registry = Registry::new();
    let game = registry.resolve("ur").unwrap();
    // Always the first move, which is often not the best: the tutor speaks
    // up; "n" chooses again (the first move again), "y" keeps it.
    let input = "1\nn\n1\ny\n".repeat(2_000);
    let mut output = Vec::new();
    let mut options = PlayOptions::seeded(Player::Light, 11);
    options.hints = Some(std::sync::Arc::new(sawah_protocol::Bot::new(
        Registry::new(),
    )));
    options.tutor = Some(1.0);
    let played =
        with_game!(&game, g => play_game(g, &options, input.as_bytes(), &mut output)).unwrap();
    let text = String::from_utf8(output).unwrap();
    assert!(
        played.winner.is_some(),
        "{}",
        &text[text.len().saturating_sub(1500)..]
    );
    let spoke = text.matches("The tutor:").count();
    assert!(spoke >= 3, "the tutor spoke {spoke} times");
    assert!(
        text.contains("gives away") && text.contains("Better: "),
        "{text}"
    );
    assert!(text.contains("keep it? [y keeps it"), "{text}");
    let text = text.replace("]: ", "]:\n");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
    // Without the tutor, the same input has nobody to answer "n" and "y".
    let mut output = Vec::new();
    options.tutor = None;
    with_game!(&game, g => play_game(g, &options, input.as_bytes(), &mut output)).unwrap();
    assert!(!String::from_utf8(output).unwrap().contains("The tutor:"));
}
