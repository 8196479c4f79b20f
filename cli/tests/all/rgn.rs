//! RGN at the command line: a tournament's games exported as RGN (and as
//! JSON records), read back by `sawah review` as the same games; a played
//! game recorded as RGN; Senet refused with the reason.

use crate::common::{assert_refused, fresh_dir, sawah, scripted};

#[test]
fn a_tournament_exports_as_rgn_that_review_reads_as_its_games() {
    let dir = fresh_dir("rgn-export");
    let run = dir.join("t");
    let run = run.to_str().unwrap();
    let (code, _, err) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "random,heuristic",
        "--games",
        "4",
        "--seed",
        "3",
        "--out",
        run,
    ]);
    assert_eq!(code, 0, "{err}");
    let (rgn_dir, json_dir) = (dir.join("rgn"), dir.join("json"));
    for (format, out) in [("rgn", &rgn_dir), ("json", &json_dir)] {
        let (code, _, err) = sawah(&[
            "export-games",
            run,
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("4 games written"), "{err}");
    }
    for k in 1..=4 {
        let rgn = rgn_dir.join(format!("game-{k:05}.rgn"));
        let text = std::fs::read_to_string(&rgn).unwrap();
        assert!(text.starts_with("[Rules ur-2]\n[Light "), "{text}");
        assert!(text.contains("\n[Seed \""), "{text}");
        assert!(text.trim_end().ends_with('#'), "{text}");
        // The review of the RGN file is the review of the JSON record, and
        // of the game in the results file, players named.
        let review = |path: &str, extra: &[&str]| {
            let mut args = vec!["review", path, "--format", "json"];
            args.extend(extra);
            let (code, out, err) = sawah(&args);
            assert_eq!(code, 0, "{err}");
            let mut value: serde_json::Value = serde_json::from_str(&out).unwrap();
            value["record"] = serde_json::Value::Null;
            value
        };
        let number = k.to_string();
        let from_results = review(&format!("{run}/results.jsonl"), &["--game-number", &number]);
        let json = json_dir.join(format!("game-{k:05}.json"));
        assert_eq!(review(rgn.to_str().unwrap(), &[]), from_results, "game {k}");
        assert_eq!(
            review(json.to_str().unwrap(), &[]),
            from_results,
            "game {k}"
        );
    }
    // To standard output: the games one after another, a blank line between.
    let (code, out, err) = sawah(&["export-games", &format!("{run}/results.jsonl")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("[Rules ur-2]").count(), 4, "{out}");
    assert_refused(&["export-games", run, "--format", "pgn"], "rgn or json");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn senet_has_no_rgn_and_says_so() {
    let dir = fresh_dir("rgn-senet");
    let run = dir.join("t");
    let run = run.to_str().unwrap();
    let (code, _, err) = sawah(&[
        "tournament",
        "--rules",
        "senet",
        "--agents",
        "random,heuristic",
        "--games",
        "2",
        "--out",
        run,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_refused(&["export-games", run], "Senet");
    let rgn = dir.join("game.rgn");
    let output = scripted(
        &[
            "play",
            "--rules",
            "senet",
            "--opponent",
            "random",
            "--record",
            rgn.to_str().unwrap(),
        ],
        "",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Senet") && stderr.contains("RGN"),
        "{stderr}"
    );
    assert!(!rgn.exists());
    // A bad RGN file is refused by review with the action and the reason.
    let bad = dir.join("bad.rgn");
    std::fs::write(&bad, "[Rules ur]\n\n1. A@B1\n").unwrap();
    assert_refused(&["review", bad.to_str().unwrap()], "the dice cannot show");
    std::fs::write(&bad, "1. A@A4\n").unwrap();
    assert_refused(&["review", bad.to_str().unwrap()], "[Rules NAME]");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_played_game_is_recorded_in_rgn() {
    let dir = fresh_dir("rgn-play");
    let rgn = dir.join("game.rgn");
    let output = scripted(
        &[
            "play",
            "--rules",
            "ur-2",
            "--opponent",
            "random",
            "--seed",
            "4",
            "--record",
            rgn.to_str().unwrap(),
            "--review",
            dir.join("review.md").to_str().unwrap(),
        ],
        &"1\n".repeat(2_000),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&rgn).unwrap();
    assert!(
        text.starts_with("[Rules ur-2]\n[Light you]\n[Dark random]\n\n1. "),
        "{text}"
    );
    let (code, out, err) = sawah(&["review", rgn.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("light (`you`)"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
