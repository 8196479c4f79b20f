//! A closed standard output ends a command quietly, as it does for other
//! Unix tools (`sawah rules | head -1`): by SIGPIPE (exit 141 in a shell)
//! or with exit 0, never with a panic or an error message.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// Runs `sawah ARGS` with `input` on stdin and its stdout closed before it
/// writes anything; checks how it ended.
fn ends_quietly(args: &[&str], input: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end at once: every write to stdout meets a closed pipe.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // The command may end before reading its input: a closed stdin is fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let quiet = output.status.success() || output.status.signal() == Some(libc_sigpipe());
    assert!(quiet, "{args:?} ended with {:?}: {stderr}", output.status);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
}

/// SIGPIPE's number (13 on every Unix this runs on).
fn libc_sigpipe() -> i32 {
    13
}

#[test]
fn describing_commands_end_quietly_on_a_closed_pipe() {
    ends_quietly(&["rules"], "");
    ends_quietly(&["rules", "ur"], "");
    ends_quietly(&["rules", "senet", "--json"], "");
    ends_quietly(
        &["moves", "--position", "ur light 7/-/0 7/-/0", "--roll", "2"],
        "",
    );
}

#[test]
fn playing_and_measuring_commands_end_quietly_on_a_closed_pipe() {
    ends_quietly(
        &[
            "match", "random", "random", "--rules", "ur-1", "--games", "2",
        ],
        "",
    );
    ends_quietly(&["bench", "--rules", "ur-1", "--seconds", "0.1"], "");
    ends_quietly(
        &[
            "bench-search",
            "--rules",
            "ur-2",
            "--depth",
            "1",
            "--positions",
            "2",
        ],
        "",
    );
    ends_quietly(
        &[
            "bench-choose",
            "--rules",
            "ur-2",
            "--agents",
            "random",
            "--positions",
            "5",
        ],
        "",
    );
    ends_quietly(&["solve", "--rules", "ur-1"], "");
    ends_quietly(
        &[
            "sprt", "--rules", "ur-1", "--new", "random", "--base", "random", "--batch", "4",
        ],
        "",
    );
}

#[test]
fn tournaments_and_elo_tables_end_quietly_on_a_closed_pipe() {
    let dir = std::env::temp_dir().join(format!("sawah-pipes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let tournament = [
        "tournament",
        "--rules",
        "ur-1",
        "--agents",
        "random,heuristic",
        "--games",
        "4",
        "--out",
        out,
    ];
    // Stopped by the closed pipe at its first line; then played in full,
    // and the finished one rerun (it prints its table again) and merged.
    ends_quietly(&tournament, "");
    let status = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(tournament)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    ends_quietly(&tournament, "");
    ends_quietly(&["elo", out], "");
    let elo_out = format!("{out}-elo");
    ends_quietly(&["elo", out, "--out", &elo_out], "");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&elo_out);
}

#[test]
fn the_bot_ends_quietly_when_its_reader_goes_away() {
    let requests = "{\"cmd\":\"list_rules\"}\n".repeat(100);
    ends_quietly(&["bot"], &requests);
}
