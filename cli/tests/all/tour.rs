//! README.md's "A short tour" runs through as written: every `sawah` line
//! of it, in order, in one fresh folder (so each line finds what the lines
//! before it made), must succeed.
//!
//! The long lines are shortened through their flags: fewer games, seconds
//! and minutes ([`SHORTER`] wherever a flag appears, [`REWRITTEN`] by the
//! README line it applies to; a line the README no longer has fails the
//! test, so the list cannot go stale). Interactive lines get a person's
//! input on standard input.
//!
//! The solve of ur (about two minutes on both cores and 2.7 GiB) and the
//! lines that read its table ([`NEEDS_THE_UR_TABLE`]) run only with
//! `SAWAH_FULL_TOUR=1` (`SAWAH_FULL_TOUR=1 cargo test -p sawah-cli --test
//! all tour`), by hand before a release: tests use the tiny rule sets. What
//! those lines do is tested on tiny tables elsewhere (the tour's own ur-3
//! lines: a solve, perfect play, a luck-adjusted tournament; `review`
//! against a table in `tournament.rs`; `puzzles check` in `puzzles.rs`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Flags whose values a test shortens wherever they appear.
const SHORTER: &[(&str, &str)] = &[
    ("--games", "2"),
    ("--seconds", "0.3"),
    ("--concurrency", "2"),
];

/// Lines changed beyond [`SHORTER`]: the README line (without its
/// comment), and what the test runs instead.
const REWRITTEN: &[(&str, &str)] = &[
    (
        "sawah match hard medium --rules ur --table ur.sawah --luck-adjusted",
        "sawah match hard medium --rules ur --table ur.sawah --luck-adjusted --games 2",
    ),
    (
        "sawah sprt --rules ur --new hard --base medium --elo0 0 --elo1 20",
        "sawah sprt --rules ur --new hard --base medium --elo0 0 --elo1 20 --max-games 4 --batch 2",
    ),
    (
        "sawah train --rules ur --out runs/ur-td --set minutes=30",
        "sawah train --rules ur --out runs/ur-td --set minutes=0.02",
    ),
    (
        "sawah bench-search --depth 3",
        "sawah bench-search --depth 3 --positions 2",
    ),
];

/// The solve of ur and the lines that read its table: run with
/// `SAWAH_FULL_TOUR=1` only.
const NEEDS_THE_UR_TABLE: &[&str] = &[
    "sawah solve --rules ur --out ur.sawah",
    "sawah match hard medium --rules ur --table ur.sawah --luck-adjusted",
    "sawah review runs/ur/results.jsonl --game-number 3 --table ur.sawah",
    "sawah review runs/ur/results.jsonl --all --table ur.sawah",
    "sawah puzzles check models/ur.puzzles.jsonl --table ur.sawah",
];

/// What a person types at an interactive line: the first legal move,
/// three times, then quit (a puzzle: skip it, then quit).
fn input_for(args: &[String]) -> Option<&'static str> {
    match args.first().map(String::as_str) {
        Some("play") => Some("1\n1\n1\nq\n"),
        Some("puzzle") => Some("s\nq\n"),
        Some("bot") => Some("{\"id\":1,\"cmd\":\"hello\"}\n"),
        _ if args.iter().any(|a| a == "play") => Some("q\n"),
        _ => None,
    }
}

/// The tour's command lines, comments and continuation lines dropped.
fn tour() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let section = readme
        .split("## A short tour")
        .nth(1)
        .expect("README.md has \"A short tour\"");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the tour is a sh block");
    block
        .lines()
        .map(|line| line.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|line| line.starts_with("sawah "))
        .collect()
}

/// `line`'s words, double-quoted words kept whole.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `sawah`'s arguments of one command, with [`SHORTER`] applied.
fn shortened(command: &str) -> Vec<String> {
    let mut args = words(command);
    assert_eq!(args.first().map(String::as_str), Some("sawah"), "{command}");
    args.remove(0);
    for i in 1..args.len() {
        if let Some((_, value)) = SHORTER.iter().find(|(flag, _)| args[i - 1] == *flag) {
            args[i] = value.to_string();
        }
    }
    args
}

fn run(dir: &Path, args: &[String], line: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = input_for(args).unwrap_or("");
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !stderr.contains("panicked"),
        "the tour line `{line}` (run as `sawah {}`) failed: {}\n{stderr}\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout)
    );
}

/// Runs `serve`'s line on a free port; returns the server and its address.
fn serve(dir: &Path, args: &[String]) -> (crate::common::Served, String) {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a.starts_with("127.0.0.1:") {
                "127.0.0.1:0".into()
            } else {
                a.clone()
            }
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(&args)
        .args(["--workers", "2"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("serve said {line:?}"))
        .to_string();
    (
        crate::common::Served {
            child,
            addr: addr.clone(),
        },
        addr,
    )
}

/// A folder with the checkout's examples, rule files and models, as the
/// tour expects beside it.
fn folder() -> PathBuf {
    let dir = crate::common::fresh_dir("tour");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for name in ["examples", "rules", "models"] {
        std::os::unix::fs::symlink(root.join(name).canonicalize().unwrap(), dir.join(name))
            .unwrap();
    }
    dir
}

#[test]
fn every_line_of_the_readme_tour_runs() {
    let lines = tour();
    assert!(lines.len() >= 40, "{lines:?}");
    for (readme, _) in REWRITTEN {
        assert!(
            lines.iter().any(|line| line == readme),
            "the tour no longer has `{readme}`: update REWRITTEN"
        );
    }
    for readme in NEEDS_THE_UR_TABLE {
        assert!(
            lines.iter().any(|line| line == readme),
            "the tour no longer has `{readme}`: update NEEDS_THE_UR_TABLE"
        );
    }
    let full = std::env::var_os("SAWAH_FULL_TOUR").is_some_and(|v| v == "1");
    let dir = folder();
    let mut server: Option<(crate::common::Served, String)> = None;
    for line in &lines {
        if !full && NEEDS_THE_UR_TABLE.contains(&line.as_str()) {
            eprintln!("skipped without SAWAH_FULL_TOUR=1: {line}");
            continue;
        }
        let text = REWRITTEN
            .iter()
            .find(|(readme, _)| readme == line)
            .map_or(line.as_str(), |(_, test)| test);
        for command in text.split(" && ") {
            let args = shortened(command);
            match args.first().map(String::as_str) {
                Some("serve") => server = Some(serve(&dir, &args)),
                Some("loadtest") => {
                    let (_, addr) = server.as_ref().expect("serve comes before loadtest");
                    let args: Vec<String> = args
                        .iter()
                        .map(|a| {
                            if a.starts_with("http://127.0.0.1:") {
                                format!("http://{addr}")
                            } else {
                                a.clone()
                            }
                        })
                        .collect();
                    run(&dir, &args, line);
                }
                _ => run(&dir, &args, line),
            }
        }
    }
    drop(server);
    std::fs::remove_dir_all(dir).unwrap();
}
