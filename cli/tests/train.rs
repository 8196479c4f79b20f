//! `sawah train`, `--resume` after SIGKILL, and `sawah export` end to end.

use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{assert_refused, sawah};

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
    ];
    for (args, needle) in cases {
        assert_refused(args, needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
