//! `sawah levels build` on a tiny rule file: the folder it makes plays its
//! hard level in the terminal, over the bot protocol and over HTTP; a
//! rerun goes on (or skips) without changing a byte, the same seed gives
//! the same model files in another folder, changed inputs are refused with
//! what changed, and a killed build, rerun, ends as the uninterrupted one.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use crate::common::{Served, assert_refused, fresh_dir, sawah};

/// The tiny rule file of the tests.
fn rule_file() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tiny-sticks.toml")
        .display()
        .to_string()
}

/// The budget tests use: a few hundred games per stage.
const EFFORT: &str = "0.02";

/// Builds the tiny rule file's levels into `dir/NAME`, with `extra` options.
fn build(dir: &Path, name: &str, extra: &[&str]) -> (i32, String, String) {
    let out = dir.join(name).display().to_string();
    let rules = rule_file();
    let mut args = vec![
        "levels", "build", "--rules", &rules, "--out", &out, "--effort", EFFORT,
    ];
    args.extend(extra);
    sawah(&args)
}

/// The model files of a folder, by name.
fn model_files(folder: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Copies the finished solve stage of build `from` into build `to`'s work
/// folder, so that both train from the same table.
fn copy_solve(dir: &Path, from: &str, to: &str) {
    let source = dir
        .join(format!("{from}.work"))
        .join("tiny-sticks")
        .join("solve");
    let target = dir
        .join(format!("{to}.work"))
        .join("tiny-sticks")
        .join("solve");
    std::fs::create_dir_all(&target).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
        }
    }
}

fn manifest(folder: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_rule_file_becomes_a_models_folder_that_every_native_front_door_plays() {
    let dir = fresh_dir("levels-build");
    let (code, stdout, stderr) = build(&dir, "tiny", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for stage in [
        "solve",
        "small-network",
        "hard-network",
        "hard-search",
        "calibration",
        "reference",
        "check",
        "puzzles",
        "verify",
        "report",
    ] {
        assert!(
            stdout.contains(&format!("{stage}: done in")),
            "{stage}: {stdout}"
        );
    }
    let folder = dir.join("tiny");
    let m = manifest(&folder);
    assert_eq!(m["rule_files"][0]["rules"], "tiny-sticks");
    assert_eq!(m["rule_files"][0]["file"], "tiny-sticks.rules.toml");
    let levels: Vec<&str> = m["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["easy", "medium", "hard"]);
    assert_eq!(m["dial"][0]["points"].as_array().unwrap().len(), 7);
    assert!(m["puzzles"][0]["count"].as_u64().unwrap() > 0, "{m}");
    let report = std::fs::read_to_string(folder.join("tiny-sticks.levels.md")).unwrap();
    for section in [
        "## Levels",
        "## Hard",
        "## Calibration",
        "## Puzzles",
        "`sawah match hard perfect",
    ] {
        assert!(report.contains(section), "{section}: {report}");
    }
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("tiny-sticks.levels.json")).unwrap(),
    )
    .unwrap();
    assert!(
        json["verify"]["adjusted"][0].as_f64().unwrap() > 0.4,
        "{json}"
    );
    for (name, bytes) in model_files(&folder) {
        assert!(bytes.len() <= 1 << 20, "{name} is over 1 MB");
    }
    let models = folder.display().to_string();

    // `sawah puzzles check`: every shipped answer recomputed from the
    // build's table passes; a changed value is refused, naming the puzzle.
    let puzzles = folder.join("tiny-sticks.puzzles.jsonl");
    let table = dir.join("tiny.work/tiny-sticks/solve/table.sawah");
    let check = |file: &Path| {
        sawah(&[
            "--rules-file",
            &rule_file(),
            "puzzles",
            "check",
            &file.display().to_string(),
            "--table",
            &table.display().to_string(),
        ])
    };
    let (code, stdout, stderr) = check(&puzzles);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("puzzles checked against"), "{stdout}");
    let text = std::fs::read_to_string(&puzzles).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut first: Value = serde_json::from_str(&lines[1]).unwrap();
    // Every value moved by the same amount: the file still agrees with
    // itself (answer and margin), and only the table can tell.
    let moves = first["moves"].as_array_mut().unwrap();
    let lowest = moves
        .iter()
        .map(|mv| mv["value"].as_f64().unwrap())
        .fold(1.0, f64::min);
    let shift = if lowest >= 0.001 { -0.001 } else { 0.001 };
    for mv in moves {
        mv["value"] = json!(mv["value"].as_f64().unwrap() + shift);
    }
    lines[1] = first.to_string();
    let changed = dir.join("changed.puzzles.jsonl");
    std::fs::write(&changed, lines.join("\n") + "\n").unwrap();
    let (code, _, stderr) = check(&changed);
    assert_ne!(code, 0);
    let id = first["id"].as_str().unwrap();
    assert!(
        stderr.contains(&format!("puzzle {id}")) && stderr.contains("differs from the table's"),
        "{stderr}"
    );

    // `puzzles generate --keep`: the set grows, its puzzles first and as
    // they were; a kept puzzle the table disagrees with is refused, and so
    // is a count that adds nothing.
    let kept = text.lines().count() - 1;
    let grow = |keep: &Path, count: usize, out: &str| {
        sawah(&[
            "--rules-file",
            &rule_file(),
            "puzzles",
            "generate",
            "--rules",
            "tiny-sticks",
            "--table",
            &table.display().to_string(),
            "--models",
            &models,
            "--keep",
            &keep.display().to_string(),
            "--count",
            &count.to_string(),
            "--rating-seeds",
            "4",
            "--seed",
            "9",
            "--out",
            &dir.join(out).display().to_string(),
        ])
    };
    let (code, _, stderr) = grow(&puzzles, kept + 3, "grown.puzzles.jsonl");
    assert_eq!(code, 0, "{stderr}");
    let grown = std::fs::read_to_string(dir.join("grown.puzzles.jsonl")).unwrap();
    let grown: Vec<&str> = grown.lines().skip(1).collect();
    let old: Vec<&str> = text.lines().skip(1).collect();
    assert!(
        grown.len() > kept && grown.len() <= kept + 3,
        "{}",
        grown.len()
    );
    let ids = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].to_string())
            .collect()
    };
    let parsed = |lines: &[&str]| -> Vec<Value> {
        lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    assert_eq!(
        parsed(&grown[..kept]),
        parsed(&old),
        "the kept puzzles come first, unchanged"
    );
    let mut unique = ids(&grown);
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), grown.len(), "no puzzle twice");
    let (code, _, stderr) = grow(&changed, kept + 3, "refused.puzzles.jsonl");
    assert_ne!(code, 0);
    assert!(
        stderr.contains("--keep") && stderr.contains(&format!("puzzle {id}")),
        "{stderr}"
    );
    let (code, _, stderr) = grow(&puzzles, kept, "refused.puzzles.jsonl");
    assert_ne!(code, 0);
    assert!(stderr.contains("--count must be larger"), "{stderr}");
    assert!(!dir.join("refused.puzzles.jsonl").exists());

    // The terminal: the rule set is known through the folder alone.
    let (code, stdout, stderr) = sawah(&[
        "match",
        "hard",
        "random",
        "--rules",
        "tiny-sticks",
        "--models",
        &models,
        "--games",
        "4",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("hard vs random on tiny-sticks"), "{stdout}");
    let (code, stdout, _) = sawah(&[
        "rules",
        "tiny-sticks",
        "--models",
        &models,
        "--report",
        "--games",
        "2",
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("tiny-sticks"), "{stdout}");

    // `sawah bot`: hard's move, from the folder's network.
    let request = json!({"cmd": "choose", "bot": "hard", "roll": 2,
        "position": "tiny-sticks light 3/-/0 3/-/0"});
    let output = crate::common::scripted(&["bot", "--models", &models], &format!("{request}\n"));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(answer["move"].is_object(), "{answer}");
    assert!(answer["values"].is_array(), "{answer}");

    // `sawah serve`: the same answer over HTTP.
    let server = Served::start(&["--models", &models]);
    let (status, body) = server.call("POST", "/v1/request", &request.to_string());
    assert_eq!(status, 200, "{body}");
    let over_http: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(over_http["move"], answer["move"]);
    assert_eq!(server.terminate(), Some(0));

    // A rerun finds every stage done and leaves the folder as it was.
    let before = model_files(&folder);
    let (code, stdout, stderr) = build(&dir, "tiny", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.matches("done before").count(), 10, "{stdout}");
    assert_eq!(model_files(&folder), before);

    // Changed inputs are refused, naming the change and the way out.
    let (code, _, stderr) = build(&dir, "tiny", &["--seed", "2"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("seed: 1 → 2"), "{stderr}");
    assert!(stderr.contains("--force solve"), "{stderr}");

    // The same seed and the same solved table in another folder: the same
    // model files, byte for byte. (The solver's parallel sweeps agree to
    // its tolerance, not to the bit: two solves may differ by one unit in
    // the last place in a few values, and training follows every bit of
    // its teacher; docs/training.md.)
    copy_solve(&dir, "tiny", "again");
    let (code, _, stderr) = build(&dir, "again", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(model_files(&dir.join("again")), before);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_build_goes_on_where_it_stopped_and_ends_as_an_uninterrupted_one() {
    let dir = fresh_dir("levels-killed");
    let out = dir.join("tiny");
    let work: PathBuf = dir.join("tiny.work").join("tiny-sticks");
    let rules = rule_file();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["levels", "build", "--rules", &rules, "--out"])
        .arg(&out)
        .args(["--effort", EFFORT])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once the hard network has started: two stages done, one begun.
    let started = std::time::Instant::now();
    while !work.join("hard-network").join("inputs.json").exists() {
        assert!(
            started.elapsed().as_secs() < 300,
            "the build never reached hard-network"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "nothing is written before the end");
    let (code, stdout, stderr) = build(&dir, "tiny", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("[2/10] small-network: done before"),
        "{stdout}"
    );
    copy_solve(&dir, "tiny", "whole");
    let (code, _, stderr) = build(&dir, "whole", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(model_files(&out), model_files(&dir.join("whole")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_what_is_wrong() {
    let dir = fresh_dir("levels-bad");
    let broken = dir.join("broken.toml");
    std::fs::write(
        &broken,
        std::fs::read_to_string(rule_file())
            .unwrap()
            .replace("pieces = 3", "pieces = \"three\""),
    )
    .unwrap();
    let out = dir.join("out").display().to_string();
    assert_refused(
        &[
            "levels",
            "build",
            "--rules",
            &broken.display().to_string(),
            "--out",
            &out,
        ],
        "pieces",
    );
    let not_models = dir.join("notes");
    std::fs::create_dir_all(&not_models).unwrap();
    std::fs::write(not_models.join("todo.txt"), "keep me").unwrap();
    assert_refused(
        &[
            "levels",
            "build",
            "--rules",
            &rule_file(),
            "--out",
            &not_models.display().to_string(),
        ],
        "is not a models folder",
    );
    assert_eq!(
        std::fs::read_to_string(not_models.join("todo.txt")).unwrap(),
        "keep me"
    );
    assert_refused(
        &[
            "levels",
            "build",
            "--rules",
            &rule_file(),
            "--out",
            &out,
            "--force",
            "everything",
        ],
        "no such stage",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// When the table does not fit `--memory`, the build goes the self-play
/// route: it solves the late layers that fit, whose values are the whole
/// solve's where they hold a position; the networks learn by self-play
/// and from searches, exact there; hard is measured against expectiminimax
/// and on the covered positions; the puzzles come from the late layers;
/// the report says so and names no path of the machine; the folder plays.
#[test]
fn a_rule_set_whose_table_does_not_fit_goes_the_self_play_route() {
    let dir = fresh_dir("levels-self-play");
    // 4 MiB: the layers with at least one piece borne off, 40% of the
    // positions, and not the whole table (10 MiB).
    let (code, stdout, stderr) = build(&dir, "out", &["--memory", "0.004"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("not solved (the table does not fit --memory")
            && stdout.contains("KiB")
            && stdout.contains("the networks learn by self-play")
            && stdout.contains("known exactly: the layers with at least"),
        "{stdout}"
    );
    // The partial table holds the whole solve's values.
    let late = dir.join("out.work/tiny-sticks/solve/late.sawah");
    let whole = dir.join("whole.sawah");
    let (code, _, stderr) = sawah(&[
        "--rules-file",
        &rule_file(),
        "solve",
        "--rules",
        "tiny-sticks",
        "--out",
        &whole.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let rules = sawah_engine::race::RuleSet::from_file(Path::new(&rule_file())).unwrap();
    let part = sawah_agents::table::Table::open_partial(&late, &rules).unwrap();
    let all = sawah_agents::table::Table::open(&whole, &rules).unwrap();
    assert!(!part.is_whole() && part.info().states > 100);
    let index = sawah_engine::race::PositionIndex::new(&rules);
    let mut held = 0;
    for i in 0..index.len() {
        let position = index.position(i).unwrap();
        if let Some(value) = part.get(&position) {
            held += 1;
            assert!((value - all.value(&position)).abs() < 1e-7, "{i}");
        }
    }
    assert_eq!(held, part.info().states);
    assert!(
        sawah_agents::table::Table::open(&late, &rules).is_err(),
        "a partial table is no table for perfect play"
    );

    let out = dir.join("out");
    let report = std::fs::read_to_string(out.join("tiny-sticks.levels.md")).unwrap();
    for said in [
        "self-play TD(λ), then from searches over itself",
        "The positions known exactly are the layers with at least",
        "Where the positions are known exactly",
        "lost per decision",
        "the deepest whose `choose` p99",
    ] {
        assert!(report.contains(said), "{said}: {report}");
    }
    assert!(!report.contains("the cheapest of  to"), "{report}");
    // No path of the machine: the folder is `.` and the work folder `WORK`.
    let here = dir.display().to_string();
    assert!(!report.contains(&here), "{report}");
    assert!(
        report.contains("--models .") && report.contains("WORK/"),
        "{report}"
    );
    // Puzzles from the late layers, checked against them.
    let puzzles = out.join("tiny-sticks.puzzles.jsonl");
    assert!(puzzles.exists(), "{report}");
    let (code, stdout, stderr) = sawah(&[
        "--rules-file",
        &rule_file(),
        "puzzles",
        "check",
        &puzzles.display().to_string(),
        "--table",
        &late.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let levels: Vec<String> = manifest(&out)["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| format!("{} {} {}", entry["rules"], entry["level"], entry["model"]))
        .collect();
    assert_eq!(
        levels,
        [
            "\"tiny-sticks\" \"easy\" \"tiny-sticks.safetensors\"",
            "\"tiny-sticks\" \"medium\" \"tiny-sticks.safetensors\"",
            "\"tiny-sticks\" \"hard\" \"tiny-sticks-hard.safetensors\""
        ]
    );
    let output = crate::common::scripted(
        &["bot", "--models", out.to_str().unwrap()],
        "{\"id\":1,\"cmd\":\"choose\",\"position\":\"tiny-sticks light 3/-/0 3/-/0\",\"roll\":1,\"bot\":\"hard\"}\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("\"move\":{"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
