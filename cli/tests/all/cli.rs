//! The `sawah` binary: bad arguments get a clear error and a non-zero exit,
//! never a panic.

use std::process::Command;

use crate::common::{assert_refused, fresh_dir, sawah};

#[test]
fn bad_input_gets_a_clear_error() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["moves", "--position", "sawah light 7/-/0", "--roll", "1"],
            "4 fields",
        ),
        (
            &[
                "moves",
                "--position",
                "sawah light 8/-/0 7/-/0",
                "--roll",
                "1",
            ],
            "8 pieces",
        ),
        (
            &[
                "moves",
                "--position",
                "sawah light 7/-/0 7/-/0",
                "--roll",
                "9",
            ],
            "roll 9",
        ),
        (
            &["moves", "--position", "{not json", "--roll", "1"],
            "malformed",
        ),
        (
            &[
                "moves",
                "--position",
                "ur light 7/-/0 7/-/0",
                "--roll",
                "1",
                "--rules",
                "sawah",
            ],
            "position is for ur",
        ),
        (&["rules", "chess"], "unknown rule set"),
        (&["rules", "no/such/file.toml"], "cannot read rule file"),
        (&["play", "--rules", "ur", "--daily"], "senet only"),
        (
            &["play", "--rules", "senet", "--daily", "2026-02-30"],
            "not a calendar date",
        ),
        (
            &["play", "--rules", "ur", "--opponent", "grandmaster"],
            "unknown agent",
        ),
        (
            &["play", "--rules", "ur", "--opponent", "perfect"],
            "sawah solve",
        ),
        (
            &["match", "easy", "expectiminimax:depth=9", "--rules", "ur"],
            "0 to 4",
        ),
        (&["bench", "--seconds", "0"], "positive"),
        (&["match", "easy", "hard", "--games", "0"], "--games"),
        (&["bench-search", "--depth", "200"], "up to 4"),
        (
            &["solve", "--rules", "senet"],
            "--pieces 4 solves the endgames",
        ),
        (&["solve", "--rules", "senet", "--pieces", "9"], "1 to 5"),
        (
            &["solve", "--rules", "ur-1", "--pieces", "2"],
            "solved whole",
        ),
        (
            &["solve", "--rules", "ur-1", "--values", "i16"],
            "one of f32, u16",
        ),
        (
            &["solve", "--rules", "ur-1", "--tolerance", "0"],
            "positive",
        ),
    ];
    for (args, needle) in cases {
        assert_refused(args, needle);
    }
}

#[test]
fn the_commands_work_end_to_end() {
    let (code, stdout, _) = sawah(&[
        "moves",
        "--position",
        "masters light 4/11,13/1 5/14,16/0",
        "--roll",
        "3",
    ]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("13 -> 16") && stdout.contains("rolls again"),
        "{stdout}"
    );
    let (code, stdout, _) = sawah(&["rules", "senet", "--json"]);
    assert_eq!(code, 0);
    let export: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(export["houses"], 30);
    let (code, stdout, _) = sawah(&["solve", "--rules", "ur-1"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("ur-1: 247 states"), "{stdout}");
    let (code, stdout, _) = sawah(&[
        "match",
        "heuristic",
        "random",
        "--rules",
        "ur-1",
        "--games",
        "10",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("10 games (5 pairs"), "{stdout}");
}

#[test]
fn a_killed_solve_resumes_from_its_layer_checkpoints() {
    let dir = fresh_dir("resume");
    let table = dir.join("masters-3.sawah");
    let layers = dir.join("masters-3.sawah.layers");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["solve", "--rules", "masters-3", "--out"])
        .arg(&table)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL) as soon as two layer pairs are saved.
    let saved = || {
        std::fs::read_dir(&layers)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
                    .count()
            })
            .unwrap_or(0)
    };
    let started = std::time::Instant::now();
    while saved() < 2 && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !table.exists(),
        "the solve was killed before writing the table"
    );
    let (code, stdout, stderr) = sawah(&[
        "solve",
        "--rules",
        "masters-3",
        "--out",
        table.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.matches("resumed from checkpoint").count() >= 2,
        "{stdout}"
    );
    assert!(
        stdout.contains("0.50855443"),
        "the same start value as a solve in one go: {stdout}"
    );
    assert!(table.exists() && !layers.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn quantize_writes_a_u16_table_within_its_bound_and_refuses_bad_input() {
    let dir = fresh_dir("quantize");
    let table = dir.join("ur-2.sawah");
    let small = dir.join("ur-2.u16.sawah");
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (code, _, stderr) = sawah(&["solve", "--rules", "ur-2", "--out", &path(&table)]);
    assert_eq!(code, 0, "{stderr}");
    let quantize = |rules: &str, from: &std::path::Path, to: &std::path::Path| {
        let (from, to) = (path(from), path(to));
        let args = ["quantize", "--rules", rules, "--table", &from, "--out", &to];
        args.map(String::from)
    };
    let args = quantize("ur-2", &table, &small);
    let (code, stdout, stderr) = sawah(&args.each_ref().map(String::as_str));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("bound 7.63e-6"), "{stdout}");
    assert!(
        std::fs::metadata(&small).unwrap().len()
            < std::fs::metadata(&table).unwrap().len() * 6 / 10
    );
    // The perfect agent plays from it.
    let spec = format!("perfect:table={}", path(&small));
    let (code, stdout, stderr) =
        sawah(&["match", &spec, "random", "--rules", "ur-2", "--games", "20"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("20 games"), "{stdout}");
    let cases = [
        (
            quantize("ur-2", &small, &dir.join("x")),
            "already holds u16",
        ),
        (quantize("ur-2", &table, &table), "must differ"),
        (
            quantize("masters-2", &table, &dir.join("y")),
            "not \"masters-2\"",
        ),
        (quantize("ur-2", &dir.join("none"), &dir.join("z")), "none"),
    ];
    for (args, needle) in &cases {
        assert_refused(&args.each_ref().map(String::as_str), needle);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The whole game of Senet (`--pieces 5`, or left out) and a four-piece
/// solve under a small --memory are refused with their plan, at once and
/// without a large allocation; a small solve prints its plan first.
#[test]
fn senet_solves_plan_before_they_allocate() {
    for args in [
        &["solve", "--rules", "senet"][..],
        &[
            "solve",
            "--rules",
            "senet",
            "--pieces",
            "5",
            "--out",
            "/nonexistent/t",
        ][..],
    ] {
        let (code, _, stderr) = sawah(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        for needed in [
            "8560690670 positions",
            "needs 63.78 GiB",
            "nothing was solved",
            "a machine with at least",
            "on 16 cores",
        ] {
            assert!(stderr.contains(needed), "{args:?}: {stderr} lacks {needed}");
        }
    }
    assert_refused(
        &[
            "solve", "--rules", "senet", "--pieces", "4", "--memory", "1",
        ],
        "437373650 positions",
    );
    assert_refused(&["solve", "--rules", "senet", "--pieces", "6"], "1 to 5");
    assert_refused(
        &["solve", "--rules", "ur", "--pieces", "2"],
        "--pieces is for senet",
    );
    let (code, stdout, stderr) = sawah(&["solve", "--rules", "senet", "--pieces", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(
            "senet endgames with at most 1 pieces per side on the board: 812 positions"
        ),
        "{stdout}"
    );
}

#[test]
fn senet_endgames_are_solved_played_from_and_reviewed() {
    let dir = fresh_dir("senet-endgame");
    let table = dir.join("senet-1.sawah");
    let table_path = table.to_str().unwrap().to_string();
    let (code, stdout, stderr) = sawah(&[
        "solve",
        "--rules",
        "senet",
        "--pieces",
        "1",
        "--out",
        &table_path,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("at most 1 pieces per side: 812 states"),
        "{stdout}"
    );
    // A game from a one-piece endgame: light bears off from 28 with a 3.
    let record = dir.join("game.json");
    std::fs::write(
        &record,
        r#"{"rules":"senet","start":"senet light 28/4 30/4","moves":["2:pass","2:pass","3:28-off"]}"#,
    )
    .unwrap();
    let (code, stdout, stderr) =
        sawah(&["review", record.to_str().unwrap(), "--endgame", &table_path]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("The covered turns of 1 game\n"), "{stdout}");
    assert!(
        stdout.contains("at most 1 piece per side on the board"),
        "{stdout}"
    );
    // Agents take it as leaf values; a race rule set refuses it.
    let spec = format!("expectiminimax:depth=0:endgame={table_path}");
    let (code, _, stderr) = sawah(&["match", &spec, "random", "--rules", "senet", "--games", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let spec = format!("heuristic:endgame={table_path}");
    assert_refused(
        &["match", &spec, "random", "--rules", "ur", "--games", "2"],
        "Senet's",
    );
    // A review of a race game with it is refused, naming both rule sets.
    std::fs::write(&record, r#"{"rules":"ur","moves":[]}"#).unwrap();
    assert_refused(
        &["review", record.to_str().unwrap(), "--endgame", &table_path],
        "is for rule set \"senet\", not \"ur\"",
    );
}

#[test]
fn a_luck_adjusted_match_prints_both_scores_and_its_reference() {
    let dir = fresh_dir("luck-match");
    let table = dir.join("ur-2.sawah");
    let table = table.to_str().unwrap();
    let (code, _, stderr) = sawah(&["solve", "--rules", "ur-2", "--out", table]);
    assert_eq!(code, 0, "{stderr}");
    let args = [
        "match",
        "expectiminimax:depth=1",
        "heuristic",
        "--rules",
        "ur-2",
        "--games",
        "200",
        "--table",
        table,
        "--luck-adjusted",
    ];
    let (code, stdout, stderr) = sawah(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("  score 0."), "{stdout}");
    assert!(stdout.contains("luck-adjusted score 0."), "{stdout}");
    assert!(
        stdout.contains("luck measured by perfect play by the solved table ur-2.sawah (exact)"),
        "{stdout}"
    );
    assert!(stdout.contains("× narrower"), "{stdout}");
    // SPRT decides on the adjusted scores.
    let (code, stdout, stderr) = sawah(&[
        "sprt",
        "--rules",
        "ur-2",
        "--new",
        "expectiminimax:depth=1",
        "--base",
        "heuristic:noise=0.05",
        "--table",
        table,
        "--luck-adjusted",
        "--batch",
        "32",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("deciding on luck-adjusted scores"),
        "{stdout}"
    );
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert!(stdout.contains("luck-adjusted score"), "{stdout}");
    // A reference is only for a luck-adjusted match; a bad one is named.
    let (code, _, stderr) = sawah(&["match", "heuristic", "random", "--reference", "hard"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--luck-adjusted"), "{stderr}");
    let (code, _, stderr) = sawah(&[
        "match",
        "heuristic",
        "random",
        "--rules",
        "ur-2",
        "--luck-adjusted",
        "--reference",
        "random",
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--reference"), "{stderr}");

    // A luck-adjusted tournament writes the luck beside every result, and
    // its table and `sawah elo --luck-adjusted` show both ratings.
    let out = dir.join("t");
    let out = out.to_str().unwrap();
    let (code, stdout, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "random,heuristic",
        "--games",
        "20",
        "--table",
        table,
        "--luck-adjusted",
        "--out",
        out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| adj. Elo |"), "{stdout}");
    assert!(stdout.contains("measuring luck took"), "{stdout}");
    let results = std::fs::read_to_string(dir.join("t/results.jsonl")).unwrap();
    assert_eq!(
        results.matches("\"luck\":{\"light_pp\":").count(),
        20,
        "{results}"
    );
    let (code, stdout, stderr) = sawah(&["elo", out, "--luck-adjusted"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("solved table ur-2.sawah (exact)"),
        "{stdout}"
    );
    let raw = dir.join("raw");
    let (code, _, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "random,heuristic",
        "--games",
        "2",
        "--out",
        raw.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = sawah(&["elo", out, raw.to_str().unwrap(), "--luck-adjusted"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("without --luck-adjusted"), "{stderr}");
}

/// docs/agents.md: a spec is a string or JSON, wherever a spec is taken.
/// On the command line the JSON form resolves levels through the shipped
/// models as the text form does, and keeps its own commas in `--agents`.
#[test]
fn the_json_form_of_a_spec_works_wherever_a_spec_is_taken() {
    let resolved = |args: &[&str]| {
        let (code, stdout, stderr) = sawah(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        stdout
    };
    // A level as JSON is the level as text.
    let text = resolved(&["match", "hard", "random", "--rules", "ur", "--games", "2"]);
    let json = resolved(&[
        "match",
        r#"{"agent":"hard"}"#,
        "random",
        "--rules",
        "ur",
        "--games",
        "2",
    ]);
    let spec_line = |out: &str| {
        out.lines()
            .nth(1)
            .unwrap()
            .split(" = ")
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(spec_line(&text), spec_line(&json), "{text}\n{json}");
    // Options as fields, including a level's.
    let out = resolved(&[
        "match",
        r#"{"agent":"expectiminimax","depth":2,"noise":0.02}"#,
        r#"{"preset":"easy","seed":3}"#,
        "--rules",
        "ur-2",
        "--games",
        "2",
    ]);
    assert!(out.contains("= expectiminimax:depth=2:noise=0.02"), "{out}");
    // In a tournament's list, between plain specs.
    let dir = fresh_dir("json-specs");
    let out = resolved(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        r#"random,{"agent":"expectiminimax","depth":2},heuristic"#,
        "--games",
        "2",
        "--out",
        dir.join("t").to_str().unwrap(),
    ]);
    assert!(out.contains("3 agents"), "{out}");
    // In SPRT, and in play against the computer.
    resolved(&[
        "sprt",
        "--rules",
        "ur-2",
        "--new",
        r#"{"agent":"expectiminimax"}"#,
        "--base",
        r#"{"agent":"random"}"#,
        "--batch",
        "8",
        "--max-games",
        "16",
    ]);
    let opponent = r#"{"agent":"heuristic","noise":0.1}"#;
    let args = [
        "play",
        "--rules",
        "ur-2",
        "--seed",
        "4",
        "--opponent",
        opponent,
    ];
    let output = crate::common::scripted(&args, &"1\n".repeat(2_000));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A broken JSON spec is named as one.
    let (code, _, stderr) = sawah(&["match", r#"{"agent":"#, "random", "--rules", "ur-2"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("a bot must be"), "{stderr}");
}
