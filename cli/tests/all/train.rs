//! `sawah train`, `--resume` after SIGKILL, and `sawah export` end to end.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{assert_refused, sawah};

const SETTINGS: [&str; 14] = [
    "--set",
    "games=3000",
    "--set",
    "minutes=0",
    "--set",
    "games_per_round=100",
    "--set",
    "eval_every=0",
    "--set",
    "eval_games=10",
    "--set",
    "checkpoint_minutes=0.00001",
    "--set",
    "hidden=[16]",
];

fn weights(run: &Path) -> Vec<sawah_agents::neural::Dense> {
    let bytes = std::fs::read(run.join("current.safetensors")).unwrap();
    sawah_agents::neural::NeuralNet::from_bytes(&bytes)
        .unwrap()
        .layers
}

/// Games played according to the checkpoint's header.
fn checkpoint_games(run: &Path) -> Option<u64> {
    let bytes = std::fs::read(run.join("checkpoint.bin")).ok()?;
    let len = u64::from_le_bytes(bytes.get(12..20)?.try_into().ok()?) as usize;
    let header: serde_json::Value = serde_json::from_slice(bytes.get(20..20 + len)?).ok()?;
    header["counters"]["games"].as_u64()
}

#[test]
fn a_killed_run_resumes_to_the_same_weights_and_exports() {
    let dir = std::env::temp_dir().join(format!("sawah-train-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let whole = dir.join("whole");
    let killed = dir.join("killed");
    let mut args = vec![
        "train",
        "--rules",
        "masters",
        "--out",
        whole.to_str().unwrap(),
    ];
    args.extend(SETTINGS);
    args.extend(["--seed", "7"]);
    let (code, _, stderr) = sawah(&args);
    assert_eq!(code, 0, "{stderr}");
    let config = std::fs::read_to_string(whole.join("config.json")).unwrap();
    assert!(
        config.contains("\"seed\": 7"),
        "--seed is the run's seed: {config}"
    );
    // Not a terminal: each evaluation is a plain line in the log.
    let line = stderr.lines().find(|l| l.starts_with("after 3000 games: "));
    let line = line.unwrap_or_else(|| panic!("no evaluation line: {stderr}"));
    assert!(line.contains("pos/s, loss "), "{line}");

    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["train", "--rules", "masters", "--out"])
        .arg(&killed)
        .args(SETTINGS)
        .args(["--seed", "7"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while checkpoint_games(&killed).is_none_or(|g| g < 300) && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let at_kill = checkpoint_games(&killed).unwrap();
    assert!(
        at_kill < 3000,
        "killed mid-run (checkpoint at {at_kill} games)"
    );
    let (code, stdout, stderr) = sawah(&["train", "--resume", killed.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("resuming") && stdout.contains("3000 games"),
        "{stdout}"
    );
    assert_eq!(
        weights(&killed),
        weights(&whole),
        "the resumed run ends where the uninterrupted one does"
    );
    // (The killed process's lock went with it.) A folder another process
    // is training in is refused, not shared.
    let lock = std::fs::File::open(killed.join("run.lock")).unwrap();
    lock.try_lock().unwrap();
    let (code, _, stderr) = sawah(&["train", "--resume", killed.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("run.lock") && stderr.contains("another process is training"),
        "{stderr}"
    );
    drop(lock);

    let model = dir.join("masters.safetensors");
    let (code, stdout, stderr) = sawah(&[
        "export",
        whole.to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("sha256"), "{stdout}");
    let spec = format!("neural:model={}", model.display());
    let (code, stdout, stderr) = sawah(&[
        "match", &spec, "random", "--rules", "masters", "--games", "20",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("score"), "{stdout}");
    // A run can start from a model file: with a learning rate too small
    // to move them, its weights end where the model's are.
    let again = dir.join("again");
    let init = format!("init=\"{}\"", model.display());
    let mut args = vec![
        "train",
        "--rules",
        "masters",
        "--out",
        again.to_str().unwrap(),
    ];
    args.extend(SETTINGS);
    args.extend([
        "--set",
        "games=100",
        "--set",
        "learning_rate=1e-9",
        "--set",
        &init,
    ]);
    let (code, _, stderr) = sawah(&args);
    assert_eq!(code, 0, "{stderr}");
    let (started, ended) = (weights(&whole), weights(&again));
    let furthest = started
        .iter()
        .zip(&ended)
        .flat_map(|(a, b)| a.weight.iter().zip(&b.weight))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(furthest < 1e-5, "weights moved by {furthest}");
    // A model for masters is refused on ur, by name.
    let (code, _, stderr) = sawah(&["match", &spec, "random", "--rules", "ur", "--games", "2"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("the model is for"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_training_arguments_get_clear_errors() {
    let dir = std::env::temp_dir().join(format!("sawah-train-bad-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let init_masters = format!(
        "init=\"{}/../models/masters-hard.safetensors\"",
        env!("CARGO_MANIFEST_DIR")
    );
    let cases: &[(&[&str], &str)] = &[
        (&["train", "--rules", "ur"], "--out"),
        (
            &[
                "train", "--rules", "ur", "--out", d, "--seed", "3", "--set", "seed=4",
            ],
            "give the seed once",
        ),
        (
            &["train", "--resume", d, "--seed", "3"],
            "leave out --config, --set and --seed",
        ),
        (
            &["train", "--rules", "ur", "--out", d, "--set", "minutes=abc"],
            "--set minutes=abc: minutes must be a number",
        ),
        (
            &["train", "--rules", "ur", "--out", d, "--set", "lamda=1"],
            "no such setting",
        ),
        (
            &["train", "--rules", "ur", "--out", d, "--set", "lambda=3"],
            "lambda",
        ),
        (
            &[
                "train",
                "--rules",
                "ur",
                "--out",
                d,
                "--set",
                "mode=distill",
            ],
            "table",
        ),
        (&["train", "--resume", "/no/such/run"], "run folder"),
        (
            &[
                "train",
                "--rules",
                "senet",
                "--out",
                d,
                "--set",
                "table=\"x\"",
            ],
            "senet is not solved whole",
        ),
        (&["export", "/no/such/run", "--out", d], "run folder"),
        (
            &[
                "train",
                "--rules",
                "ur",
                "--out",
                d,
                "--set",
                "encoder=senet-features-v1",
            ],
            "ur offers race-onehot-v1",
        ),
        (
            &[
                "train",
                "--rules",
                "senet",
                "--out",
                d,
                "--set",
                "eval_opponents=[\"expectiminimax:depth=x\"]",
            ],
            "evaluation opponent expectiminimax:depth=x",
        ),
        (&["curve", "/no/such/run"], "run folder"),
        (
            &["train", "--rules", "ur", "--out", d, "--set", &init_masters],
            "the model is for rule set masters",
        ),
        (
            &[
                "train",
                "--rules",
                "masters",
                "--out",
                d,
                "--set",
                &init_masters,
            ],
            "the run needs race-onehot-v1 with layers [64, 64, 1]",
        ),
        (
            &[
                "train",
                "--rules",
                "ur",
                "--out",
                d,
                "--set",
                "init=\"/no/such/model.safetensors\"",
            ],
            "/no/such/model.safetensors",
        ),
    ];
    for (args, needle) in cases {
        assert_refused(args, needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run folder with the given evaluations (and a config.json like a run's).
fn fake_run(dir: &Path, evals: &[(u64, f64)]) {
    std::fs::create_dir_all(dir).unwrap();
    let config = serde_json::json!({
        "rules": "senet", "rules_digest": "x", "encoder": "senet-onehot-v1",
        "config": {}, "code_version": "test",
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let lines: Vec<String> = evals
        .iter()
        .map(|&(games, score)| {
            serde_json::json!({
                "games": games,
                "results": [["random", 0.9, 0.88, 0.92], ["expectiminimax:depth=1", score, score - 0.02, score + 0.02]],
                "measures": [],
            })
            .to_string()
        })
        .collect();
    std::fs::write(dir.join("evals.jsonl"), lines.join("\n") + "\n").unwrap();
}

#[test]
fn curve_draws_runs_against_one_opponent_and_names_what_is_missing() {
    let dir = crate::common::fresh_dir("curve");
    let (a, b) = (dir.join("a"), dir.join("b"));
    fake_run(
        &a,
        &[(1000, 0.52), (2000, 0.58), (3000, 0.60), (4000, 0.605)],
    );
    fake_run(
        &b,
        &[(1000, 0.55), (2000, 0.63), (3000, 0.64), (4000, 0.64)],
    );
    let out = dir.join("curve.svg");
    let (code, stdout, stderr) = sawah(&[
        "curve",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--opponent",
        "expectiminimax:depth=1",
        "--label",
        "one-hot",
        "--label",
        "features",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // 60.5% is +74 Elo; the table lists every evaluation of both runs.
    assert!(stdout.contains("| 4000 | 60.5% | +74 |"), "{stdout}");
    assert!(stdout.contains("features: ends at"), "{stdout}");
    assert!(stdout.contains("flat from 2000 training games"), "{stdout}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("one-hot") && svg.contains("features"));
    // Two opponents and none named; an opponent no run played; labels
    // that do not match the runs.
    let a = a.to_str().unwrap();
    assert_refused(&["curve", a], "expectiminimax:depth=1, random");
    assert_refused(
        &["curve", a, "--opponent", "heuristic"],
        "no evaluation against \"heuristic\"",
    );
    assert_refused(
        &["curve", a, "--label", "x", "--label", "y"],
        "one --label per run",
    );
    std::fs::write(dir.join("a/evals.jsonl"), "{not json\n").unwrap();
    assert_refused(&["curve", a, "--opponent", "random"], "line 1");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Expert iteration (targets from search, every move's result where the
/// choice matters) on the tiny ur-2, the same seed each time.
const SHARED_RUN: [&str; 18] = [
    "--rules",
    "ur-2",
    "--seed",
    "7",
    "--set",
    "games=400",
    "--set",
    "minutes=0",
    "--set",
    "games_per_round=100",
    "--set",
    "eval_every=0",
    "--set",
    "hidden=[8]",
    "--set",
    "mode=search",
    "--set",
    "choice_margin=0.001",
];

/// `sawah train-shard RUN --shard K/N` in the background.
fn shard(run: &Path, shard: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["train-shard", run.to_str().unwrap(), "--shard", shard])
        .args(["--idle", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Shared among shards, a run trains the weights it trains on one machine:
/// with both shards there (started before the learner, on its folder), and
/// with one of two missing (the learner plays its share after the wait).
#[test]
fn a_sharded_run_trains_the_weights_a_run_on_one_machine_trains() {
    let dir = crate::common::fresh_dir("train-shards");
    let train = |out: &Path, extra: &[&str]| {
        let mut args = vec!["train", "--out", out.to_str().unwrap()];
        args.extend_from_slice(&SHARED_RUN);
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = sawah(&args);
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    let alone = dir.join("alone");
    train(&alone, &[]);

    let shared = dir.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let shards = [shard(&shared, "1/2"), shard(&shared, "2/2")];
    let stdout = train(&shared, &["--shards", "2"]);
    // Every share came from the shards (they beat from the first round).
    assert!(stdout.contains("shards, 0 here"), "{stdout}");
    for child in shards {
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("finished"), "{stdout}");
    }
    assert_eq!(weights(&shared), weights(&alone));

    let half = dir.join("half");
    std::fs::create_dir_all(&half).unwrap();
    let only = shard(&half, "1/2");
    let stdout = train(&half, &["--shards", "2", "--shard-wait", "1"]);
    assert!(only.wait_with_output().unwrap().status.success());
    assert!(stdout.contains("here"), "{stdout}");
    assert_eq!(weights(&half), weights(&alone));

    // A shard of another count is refused by name.
    let (code, _, stderr) = sawah(&["train-shard", half.to_str().unwrap(), "--shard", "0/2"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("K/N"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
