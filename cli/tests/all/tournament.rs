//! `sawah tournament`, `sawah elo` and `sawah sprt` end to end: tables in
//! every format, resuming after a kill, shards merging into the unsharded
//! run game for game, SPRT deciding, and clear errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{assert_refused, sawah};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sawah-tournament-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const AGENTS: &str = "random,heuristic,easy,expectiminimax:depth=1";

fn tournament(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let games = extra
        .iter()
        .position(|&a| a == "--games")
        .map(|k| extra[k + 1])
        .unwrap_or("40");
    let extra: Vec<&str> = match extra.iter().position(|&a| a == "--games") {
        Some(k) => [&extra[..k], &extra[k + 2..]].concat(),
        None => extra.to_vec(),
    };
    let mut args = vec![
        "tournament",
        "--rules",
        "ur-3",
        "--agents",
        AGENTS,
        "--games",
        games,
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(&extra);
    sawah(&args)
}

/// Game lines of a results file, sorted (file order depends on threads).
fn games(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().skip(1).map(String::from).collect();
    lines.sort();
    lines
}

#[test]
fn a_round_robin_writes_every_table_and_shards_merge_to_the_same_games() {
    let whole = scratch("whole");
    let (code, stdout, stderr) = tournament(&whole, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| 1 |"), "{stdout}");
    for file in ["elo.md", "elo.csv", "elo.json", "elo.svg", "results.jsonl"] {
        assert!(whole.join(file).exists(), "{file}");
    }
    let csv = std::fs::read_to_string(whole.join("elo.csv")).unwrap();
    assert!(csv.starts_with("agent,elo,ci_low,ci_high,games,score"));
    assert_eq!(csv.lines().count(), 5, "{csv}");
    // 6 pairings of 40 games, every agent 120 games.
    assert_eq!(games(&whole).len(), 240);
    assert!(csv.lines().skip(1).all(|l| l.contains(",120,")), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("elo.json")).unwrap()).unwrap();
    let random = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["agent"] == "random")
        .unwrap();
    assert_eq!(random["elo"], 0.0, "the default anchor");

    let mut shards = Vec::new();
    let mut sharded = Vec::new();
    for k in 1..=3 {
        let dir = scratch(&format!("shard{k}"));
        let (code, _, stderr) = tournament(&dir, &["--shard", &format!("{k}/3")]);
        assert_eq!(code, 0, "{stderr}");
        sharded.extend(games(&dir));
        shards.push(dir);
    }
    sharded.sort();
    assert_eq!(
        sharded,
        games(&whole),
        "shards are the unsharded run, game for game"
    );
    let merged = scratch("merged");
    let mut args = vec!["elo"];
    let shard_names: Vec<String> = shards.iter().map(|d| d.display().to_string()).collect();
    args.extend(shard_names.iter().map(String::as_str));
    args.extend(["--out", merged.to_str().unwrap()]);
    let (code, stdout, stderr) = sawah(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("240 games from 3 folders"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(merged.join("elo.csv")).unwrap(),
        csv,
        "the merged table is the unsharded one"
    );
    for dir in shards.iter().chain([&whole, &merged]) {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_killed_tournament_resumes_without_replaying_or_losing_games() {
    let dir = scratch("killed");
    let reference = scratch("unkilled");
    let (code, _, stderr) = tournament(&reference, &["--games", "200"]);
    assert_eq!(code, 0, "{stderr}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["tournament", "--rules", "ur-3", "--agents", AGENTS])
        .args(["--games", "200", "--seed", "3", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let file = dir.join("results.jsonl");
    let started = std::time::Instant::now();
    let lines = || {
        std::fs::read_to_string(&file)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    while lines() < 50 && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = lines();
    assert!(before < 1201, "killed before the end ({before} lines)");
    let (code, stdout, stderr) = tournament(&dir, &["--games", "200"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("from before"), "{stdout}");
    assert_eq!(games(&dir), games(&reference));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&reference).unwrap();
}

#[test]
fn a_gauntlet_plays_the_first_agent_against_each_other() {
    let dir = scratch("gauntlet");
    let (code, _, stderr) = tournament(
        &dir,
        &["--format", "gauntlet", "--anchor", "heuristic=1000"],
    );
    assert_eq!(code, 0, "{stderr}");
    let lines = games(&dir);
    assert_eq!(lines.len(), 120);
    assert!(lines.iter().all(|l| l.contains("\"random\"")));
    let csv = std::fs::read_to_string(dir.join("elo.csv")).unwrap();
    assert!(
        csv.contains("\"heuristic\",1000.00,1000.00,1000.00"),
        "{csv}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_tournament_arguments_get_clear_errors() {
    let dir = scratch("bad");
    let d = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["tournament", "--agents", "random", "--out", d],
            "at least two agents",
        ),
        (
            // Checked before any game is played.
            &[
                "tournament",
                "--rules",
                "ur-1",
                "--agents",
                "random,heuristic",
                "--table",
                "/dev/null",
                "--out",
                d,
            ],
            "table /dev/null: not a regular file",
        ),
        (
            &["tournament", "--agents", "random,alphazero", "--out", d],
            "alphazero",
        ),
        (
            &["tournament", "--agents", "random,random", "--out", d],
            "listed twice",
        ),
        (
            &[
                "tournament",
                "--agents",
                "random,heuristic",
                "--games",
                "0",
                "--out",
                d,
            ],
            "--games",
        ),
        (
            &[
                "tournament",
                "--agents",
                "random,heuristic",
                "--format",
                "swiss",
                "--out",
                d,
            ],
            "round-robin or gauntlet",
        ),
        (
            &[
                "tournament",
                "--agents",
                "random,heuristic",
                "--shard",
                "4/3",
                "--out",
                d,
            ],
            "K/N",
        ),
        (
            &[
                "tournament",
                "--agents",
                "random,heuristic",
                "--anchor",
                "hard=0",
                "--out",
                d,
            ],
            "not one of the agents",
        ),
        (
            &[
                "tournament",
                "--agents",
                "random,perfect",
                "--rules",
                "ur-2",
                "--out",
                d,
            ],
            "solved table",
        ),
        (
            &["elo", "/nonexistent/folder", "--out", d],
            "/nonexistent/folder",
        ),
        (
            &[
                "sprt",
                "--new",
                "heuristic",
                "--base",
                "random",
                "--elo0",
                "5",
                "--elo1",
                "0",
            ],
            "elo0 must be below elo1",
        ),
        (
            &[
                "sprt",
                "--new",
                "heuristic",
                "--base",
                "random",
                "--alpha",
                "0",
            ],
            "alpha",
        ),
        (
            &[
                "sprt",
                "--new",
                "heuristic",
                "--base",
                "random",
                "--model",
                "bayes",
            ],
            "logistic or normalized",
        ),
    ];
    for (args, needle) in cases {
        assert_refused(args, needle);
    }
    assert!(!dir.join("results.jsonl").exists(), "nothing was played");
    // Another tournament's folder is refused, naming the difference.
    let (code, _, stderr) = tournament(&dir, &["--games", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = tournament(&dir, &["--games", "2", "--format", "gauntlet"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("format") && stderr.contains("another tournament"),
        "{stderr}"
    );
    // A folder another run is writing is refused, and left as it was.
    let lock = std::fs::File::open(dir.join("results.lock")).unwrap();
    lock.try_lock().unwrap();
    let before = std::fs::read(dir.join("results.jsonl")).unwrap();
    let (code, _, stderr) = tournament(&dir, &["--games", "2"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("results.lock") && stderr.contains("another run"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(dir.join("results.jsonl")).unwrap(), before);
    drop(lock);
    let (code, _, stderr) = tournament(&dir, &["--games", "2"]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_accepts_a_clearly_better_agent_and_rejects_an_equal_one() {
    let out = scratch("sprt");
    std::fs::create_dir_all(&out).unwrap();
    let json = out.join("sprt.json");
    let (code, stdout, stderr) = sawah(&[
        "sprt",
        "--rules",
        "ur-3",
        "--new",
        "heuristic",
        "--base",
        "random",
        "--elo0",
        "0",
        "--elo1",
        "50",
        "--out",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(result["decision"], "H1 accepted");
    assert!(result["llr"].as_f64().unwrap() >= result["upper_bound"].as_f64().unwrap());
    // The same agent (other seeds) is not 50 Elo better than itself.
    let (code, stdout, stderr) = sawah(&[
        "sprt",
        "--rules",
        "ur-3",
        "--new",
        "heuristic:noise=0.05:seed=1",
        "--base",
        "heuristic:noise=0.05:seed=2",
        "--elo0",
        "0",
        "--elo1",
        "50",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("H0 accepted"), "{stdout}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn with_a_solved_table_perfect_play_loses_nothing_per_move() {
    let dir = scratch("perfect");
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("ur-2.sawah");
    let (code, _, stderr) = sawah(&["solve", "--rules", "ur-2", "--out", table.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.join("t");
    let (code, stdout, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "perfect,heuristic,random",
        "--games",
        "60",
        "--table",
        table.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("loss/move"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("elo.json")).unwrap()).unwrap();
    let loss = |agent: &str| {
        json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["agent"] == agent)
            .unwrap()["loss_per_move_pp"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(loss("perfect"), 0.0);
    assert!(loss("heuristic") > 0.0);
    assert!(loss("random") > loss("heuristic"), "{json}");
    assert_eq!(json["rows"][0]["agent"], "perfect");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn elo_without_out_prints_the_table_and_writes_nothing() {
    let dir = scratch("elo-print");
    let (code, _, stderr) = tournament(&dir, &[]);
    assert_eq!(code, 0, "{stderr}");
    let before: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    let (code, stdout, stderr) = sawah(&["elo", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("| `heuristic` |"), "{stdout}");
    assert!(!stdout.contains("written:"), "{stdout}");
    let after: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(before.len(), after.len());
}

/// Copies the shipped models (the folder's files, not its baselines/)
/// into `dir/models`.
fn copy_models(dir: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    std::fs::create_dir_all(dir.join("models")).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join("models").join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// `sawah tournament` of the shipped levels on ur, run in `cwd` (which
/// finds the models as ./models).
fn levels_tournament(cwd: &Path, out: &Path, shard: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sawah"));
    command
        .current_dir(cwd)
        .args([
            "tournament",
            "--rules",
            "ur",
            "--agents",
            "random,easy,medium",
        ])
        .args(["--games", "60", "--seed", "5", "--shard", shard, "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

#[test]
fn shards_run_in_other_folders_resume_and_merge_into_the_unsharded_table() {
    let root = scratch("portable");
    // Three working folders, each reaching the shipped models by its own
    // path: a copy, a symbolic link, another copy.
    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    copy_models(&a);
    copy_models(&c);
    std::fs::create_dir_all(&b).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../models"),
        b.join("models"),
    )
    .unwrap();
    #[cfg(not(unix))]
    copy_models(&b);
    let ok = |mut command: Command| {
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
    };
    let whole = root.join("whole");
    ok(levels_tournament(&a, &whole, "1/1"));
    let (one, two) = (root.join("one"), root.join("two"));
    ok(levels_tournament(&a, &one, "1/2"));
    // Shard 2 from b, killed part-way, then resumed from c.
    let mut child = levels_tournament(&b, &two, "2/2").spawn().unwrap();
    let file = two.join("results.jsonl");
    let lines = || {
        std::fs::read_to_string(&file)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let started = std::time::Instant::now();
    while lines() < 10 && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let header = std::fs::read_to_string(&file).unwrap();
    let header = header.lines().next().unwrap();
    assert!(header.contains("model=ur.safetensors"), "{header}");
    assert!(!header.contains("/models/"), "no paths: {header}");
    ok(levels_tournament(&c, &two, "2/2"));
    let mut sharded = games(&one);
    sharded.extend(games(&two));
    sharded.sort();
    assert_eq!(sharded, games(&whole), "the shards are the whole run");
    // Merged from yet another folder, with the models reached by another path.
    let merged = root.join("merged");
    let output = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .current_dir(&c)
        .args(["elo"])
        .args([&one, &two])
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let csv = |dir: &Path| std::fs::read_to_string(dir.join("elo.csv")).unwrap();
    assert_eq!(
        csv(&merged),
        csv(&whole),
        "the merged table is the unsharded one"
    );

    // A model that really changed is refused, by name and both checksums.
    let mut model = std::fs::read(c.join("models/ur.safetensors")).unwrap();
    let last = model.len() - 1;
    model[last] ^= 1;
    std::fs::write(c.join("models/ur.safetensors"), &model).unwrap();
    // ... with its manifest updated to match (a retrained model shipped).
    let manifest = std::fs::read_to_string(c.join("models/manifest.json")).unwrap();
    let sum = |bytes: &[u8]| {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(bytes))
    };
    let old = sum(&std::fs::read(a.join("models/ur.safetensors")).unwrap());
    assert!(manifest.contains(&old));
    let manifest = manifest.replace(&old, &sum(&model));
    std::fs::write(c.join("models/manifest.json"), manifest).unwrap();
    let output = levels_tournament(&c, &two, "2/2").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("model file ur.safetensors of easy")
            && stderr.matches("SHA-256").count() == 2,
        "{stderr}"
    );
    // ... and merging a shard played with it into the others is refused too.
    let three = root.join("three");
    ok(levels_tournament(&c, &three, "2/2"));
    let output = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["elo"])
        .args([&one, &three])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("ur.safetensors of easy") && stderr.matches("SHA-256").count() == 2,
        "{stderr}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn match_names_agents_as_typed_and_warns_about_a_mirror_match() {
    let (code, stdout, stderr) = sawah(&["match", "hard", "easy", "--rules", "ur", "--games", "4"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("hard vs easy on ur: 4 games"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n  hard = neural:depth=3:focus=2:model=ur-hard.safetensors\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  hard wins "), "{stdout}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let (code, stdout, stderr) = sawah(&["match", "easy", "easy", "--rules", "ur", "--games", "4"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "warning: both agents are neural:noise=0.04:model=ur.safetensors with the same seed"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("Elo difference +0 ("), "no -0: {stdout}");
    let (_, _, stderr) = sawah(&[
        "match",
        "easy",
        "easy:seed=2",
        "--rules",
        "ur",
        "--games",
        "2",
    ]);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn match_and_sprt_take_the_table_perfect_agents_play_from() {
    let dir = scratch("perfect-table");
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("ur-2.table");
    let (code, _, stderr) = sawah(&["solve", "--rules", "ur-2", "--out", table.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let t = table.to_str().unwrap();
    let (code, stdout, stderr) = sawah(&[
        "match", "perfect", "random", "--rules", "ur-2", "--games", "20", "--table", t,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("perfect wins"), "{stdout}");
    assert_refused(
        &[
            "match", "perfect", "random", "--rules", "ur-2", "--games", "2",
        ],
        "table",
    );
    let (code, stdout, stderr) = sawah(&[
        "sprt", "--rules", "ur-2", "--new", "perfect", "--base", "random", "--elo1", "100",
        "--table", t,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("perfect (new)") && stdout.contains("accepted"),
        "{stdout}"
    );
    assert_refused(
        &[
            "sprt",
            "--rules",
            "ur-2",
            "--new",
            "perfect",
            "--base",
            "random",
            "--table",
            "/dev/null",
        ],
        "/dev/null",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_installed_binary_plays_the_shipped_levels_with_no_files_beside_it() {
    // A copy of the binary, run from an empty folder: the levels come from
    // the models embedded in it.
    let dir = scratch("installed");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let binary = dir.join("bin/sawah");
    std::fs::copy(env!("CARGO_BIN_EXE_sawah"), &binary).unwrap();
    let output = Command::new(&binary)
        .current_dir(dir.join("work"))
        .args(["match", "hard", "easy", "--rules", "senet", "--games", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("model=senet.safetensors"), "{stdout}");
    // A file of that name in the working folder is read instead (here a
    // broken one, refused by name).
    std::fs::write(dir.join("work/senet.safetensors"), b"not a model").unwrap();
    let output = Command::new(&binary)
        .current_dir(dir.join("work"))
        .args(["match", "hard", "easy", "--rules", "senet", "--games", "2"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("senet.safetensors"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rules_draws_one_board_with_both_players_square_numbers() {
    let (code, stdout, stderr) = sawah(&["rules", "masters"]);
    assert_eq!(code, 0, "{stderr}");
    // Light's 12 faces dark's 16, both marks; light's 1 is a square dark never visits.
    assert!(stdout.contains("[12/16*]"), "{stdout}");
    assert!(stdout.contains("[16/12*]"), "{stdout}");
    assert!(stdout.contains("[ 1/-  ]"), "{stdout}");
    assert!(stdout.contains("[ 8/8 *]"), "{stdout}");
}

#[test]
fn review_measures_a_tournament_game_against_the_table() {
    let dir = scratch("review");
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("ur-2.table");
    let t = table.to_str().unwrap();
    let (code, _, stderr) = sawah(&["solve", "--rules", "ur-2", "--out", t]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.join("games");
    let (code, _, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "perfect,random",
        "--games",
        "2",
        "--table",
        t,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let results = out.join("results.jsonl");
    let r = results.to_str().unwrap();
    let (code, stdout, stderr) = sawah(&["review", r, "--game-number", "2", "--table", t]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Reference: perfect play by the solved table ur-2.table"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| light |") && stdout.contains("| turn |"),
        "{stdout}"
    );
    let (code, stdout, stderr) = sawah(&["review", r, "--table", t, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Perfect play gives nothing away, on whichever side it played game 1.
    let text = std::fs::read_to_string(&results).unwrap();
    let game: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let seat = if game["light"] == "perfect" {
        "light"
    } else {
        "dark"
    };
    let other = if seat == "light" { "dark" } else { "light" };
    assert_eq!(json[seat]["total_loss_pp"], 0.0, "{json}");
    assert!(json[other]["decisions"].as_u64().unwrap() > 0, "{json}");
    // A record in turns, with an illegal third move, is refused by number.
    let record = dir.join("bad.json");
    std::fs::write(
        &record,
        r#"{"rules":"ur-2","turns":[{"roll":2,"move":{"from":0,"to":2}},{"roll":0,"move":"pass"},{"roll":3,"move":{"from":0,"to":9}}]}"#,
    )
    .unwrap();
    assert_refused(
        &["review", record.to_str().unwrap(), "--table", t],
        "move 3 (\"3:0-9\")",
    );
    assert_refused(
        &["review", r, "--game-number", "9", "--table", t],
        "no game 9",
    );
    assert_refused(&["review", r, "--table", "/dev/null"], "/dev/null");
    let (code, stdout, stderr) = sawah(&[
        "review", r, "--table", t, "--format", "svg", "--view", "dark",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("<svg") && stdout.contains("dark&apos;s chances"),
        "{stdout}"
    );
    assert_refused(
        &[
            "review", r, "--table", t, "--format", "svg", "--view", "blue",
        ],
        "--view blue",
    );
    // Every game, per agent: perfect play gives nothing away.
    let (code, stdout, stderr) = sawah(&["review", r, "--all", "--table", t]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("# Review of 2 games of ur-2"), "{stdout}");
    let perfect_row = stdout
        .lines()
        .find(|l| l.starts_with("| `perfect` | 2 |"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(perfect_row.contains("| 0.000 | 0 | 0 |"), "{perfect_row}");
    let (code, stdout, stderr) = sawah(&["review", r, "--all", "--table", t, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let totals: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let agents: Vec<&str> = totals
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["perfect", "random"], "least loss first");
    assert_refused(
        &["review", r, "--all", "--format", "svg", "--table", t],
        "one game",
    );
    // Another reference, named in the output; random has no values.
    let (code, stdout, stderr) = sawah(&["review", r, "--reference", "expectiminimax:depth=1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Reference: expectiminimax:depth=1."),
        "{stdout}"
    );
    assert_refused(
        &["review", r, "--reference", "random"],
        "no win probabilities",
    );
    // A hint ranks the moves by the table, with what each does.
    let (code, stdout, stderr) = sawah(&[
        "hint",
        "--position",
        "ur-2 light 2/-/0 2/-/0",
        "--roll",
        "4",
        "--table",
        t,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("| 1 | 0-4 |") && stdout.contains("lands on a rosette and rolls again"),
        "{stdout}"
    );
    let (code, stdout, stderr) = sawah(&[
        "hint",
        "--position",
        "ur-2 light 1/2/0 2/-/0",
        "--roll",
        "3",
        "--table",
        t,
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let hint: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(hint["exact"], true, "{hint}");
    assert_eq!(hint["moves"].as_array().unwrap().len(), 2, "{hint}");
    assert_refused(
        &[
            "hint",
            "--position",
            "ur-2 light 2/-/0 2/-/0",
            "--roll",
            "9",
            "--table",
            t,
        ],
        "roll",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a bot author meets: a shard whose share holds no game ends well
/// (an array task that did nothing wrong must not fail); a run without
/// `--luck-adjusted` says nothing of luck; an agent name that is no agent
/// hints at `--bots`; the table's command runs from anywhere (it names
/// its folder) and names the shard it played.
#[test]
fn an_empty_shard_ends_well_and_the_terminal_says_what_applies() {
    let dir = scratch("author");
    let out = dir.join("s");
    let (code, stdout, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "random,heuristic",
        "--games",
        "2",
        "--shard",
        "3/3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("shard 3/3 holds no game"), "{stdout}");
    assert!(out.join("results.jsonl").exists());
    let whole = dir.join("w");
    let (code, stdout, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "random,heuristic",
        "--games",
        "4",
        "--shard",
        "1/2",
        "--out",
        whole.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.to_lowercase().contains("luck"), "{stdout}");
    let elo = std::fs::read_to_string(whole.join("elo.md")).unwrap();
    let command = elo.lines().find(|l| l.starts_with("Command: `")).unwrap();
    assert!(
        command.starts_with("Command: `cd /") && command.contains("--shard 1/2"),
        "{command}"
    );
    let header = std::fs::read_to_string(whole.join("results.jsonl")).unwrap();
    assert!(
        header.lines().next().unwrap().contains("\"command\":\"cd "),
        "{header}"
    );
    let (code, _, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "random,greedy",
        "--games",
        "2",
        "--out",
        dir.join("x").to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("unknown agent \"greedy\"") && stderr.contains("--bots FILE"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
