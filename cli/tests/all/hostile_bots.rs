//! Hostile outside bots: one that hangs, one that crashes at start, one
//! that crashes mid-game, one that answers garbage, one that answers
//! illegal moves, one that writes an endless line, and one that forks a
//! child holding its stdout open. The tournament finishes in bounded time
//! with each of their games a forfeit with its reason, in bounded memory,
//! and with no process left behind; SIGTERM mid-tournament kills every
//! bot's process group. (The peak memory is the tournament's own and its
//! bots', read by `wait4` on its process: the other tests of this binary
//! run beside it, and their processes are not counted.)

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::fresh_dir;

/// A marker in every hostile bot's command line, to find leftovers.
const MARKER: &str = "sawah-hostile-marker";

fn write_bots(dir: &Path) {
    let scripts = [
        // Answers hello, then never answers again (and never reads).
        (
            "hang",
            "import json, sys, time\nline = sys.stdin.readline()\nprint(json.dumps({'id': json.loads(line)['id'], 'name': 'hang'}), flush=True)\ntime.sleep(1000)\n",
        ),
        (
            "crash_start",
            "import sys\nsys.stderr.write('cannot load my weights\\n')\nsys.exit(3)\n",
        ),
        // Plays the first legal move twice, then dies.
        (
            "crash_mid",
            "import json, sys\nn = 0\nfor line in sys.stdin:\n    r = json.loads(line)\n    if r['cmd'] == 'choose':\n        n += 1\n        if n > 2:\n            sys.stderr.write('segmentation fault (pretend)\\n')\n            sys.exit(139)\n        m = r['moves'][0]\n        print(json.dumps({'id': r['id'], 'move': {'from': m['from'], 'to': m['to']}}), flush=True)\n    else:\n        print(json.dumps({'id': r['id']}), flush=True)\n",
        ),
        (
            "garbage",
            "import sys\nfor line in sys.stdin:\n    print('this is not json {', flush=True)\n",
        ),
        (
            "illegal",
            "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n    print(json.dumps({'id': r['id'], 'move': {'from': 99, 'to': 100}}), flush=True)\n",
        ),
        (
            "endless",
            "import sys\nsys.stdin.readline()\nchunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n",
        ),
        // Forks a child that keeps stdout open, then exits itself.
        (
            "forker",
            "import os, sys, time\nsys.stdin.readline()\nif os.fork() == 0:\n    time.sleep(1000)\nelse:\n    sys.exit(0)\n",
        ),
    ];
    let mut toml = String::new();
    for (name, script) in scripts {
        std::fs::write(dir.join(format!("{name}.py")), script).unwrap();
        toml.push_str(&format!(
            "[[bot]]\nname = \"{name}\"\ncommand = [\"python3\", \"{name}.py\", \"{MARKER}\"]\n\n"
        ));
    }
    std::fs::write(dir.join("bots.toml"), toml).unwrap();
}

fn leftovers() -> String {
    leftovers_marked(MARKER)
}

/// The processes whose command line holds `marker`.
fn leftovers_marked(marker: &str) -> String {
    let output = Command::new("pgrep")
        .args(["-af", marker])
        .output()
        .expect("pgrep");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.contains("pgrep"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The largest resident set (KiB) of any waited-for child so far.
/// Runs `command` to its end, as `Command::output` does, with the peak
/// resident memory in KiB of its process and of the processes it waited
/// for (`wait4`'s usage of that one child, whatever else this test
/// binary runs at the time).
#[allow(clippy::zombie_processes, reason = "the child is waited for by wait4")]
fn output_with_peak(command: &mut Command) -> (std::process::Output, i64) {
    use std::io::Read;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).unwrap();
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: wait4 fills the status and usage it is given; the child is
    // ours and not waited for elsewhere (`child` is never waited on).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    let output = std::process::Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(status),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (output, usage.ru_maxrss)
}

#[test]
fn hostile_bots_forfeit_with_reasons_in_bounded_time_and_memory_and_leave_nothing() {
    let dir = fresh_dir("hostile");
    write_bots(&dir);
    let out = dir.join("t");
    let started = Instant::now();
    let mut tournament = Command::new(env!("CARGO_BIN_EXE_sawah"));
    tournament
        .args([
            "tournament",
            "--rules",
            "ur-2",
            "--format",
            "gauntlet",
            "--agents",
            "random,hang,crash_start,crash_mid,garbage,illegal,endless,forker",
            "--games",
            "4",
            "--move-time",
            "2",
            "--withdraw-after",
            "3",
            "--out",
            out.to_str().unwrap(),
            "--bots",
            dir.join("bots.toml").to_str().unwrap(),
        ])
        .stdin(Stdio::null());
    let (output, peak_kib) = output_with_peak(&mut tournament);
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // Seven bots, four games each, each forfeit within the move time or so.
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    let peak_mib = peak_kib / 1024;
    assert!(
        (1..300).contains(&peak_mib),
        "peak resident memory {peak_mib} MiB"
    );
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let mut reasons: HashMap<String, Vec<String>> = HashMap::new();
    for line in text.lines().skip(1) {
        let game: Value = serde_json::from_str(line).unwrap();
        let (light, dark) = (
            game["light"].as_str().unwrap(),
            game["dark"].as_str().unwrap(),
        );
        let bot = if light == "random" { dark } else { light };
        let failure = &game["failure"];
        assert!(failure.is_object(), "{bot} must forfeit: {line}");
        assert_eq!(game["ending"], "forfeit", "{line}");
        let loser = failure["seat"].as_str().unwrap();
        assert_eq!(game[loser], bot, "{line}");
        assert_ne!(game["winner"].as_str(), Some(loser), "{line}");
        reasons.entry(bot.to_string()).or_default().push(format!(
            "{} [{}]",
            failure["message"].as_str().unwrap(),
            failure["kind"].as_str().unwrap()
        ));
    }
    // Each bot's reason in words, and its kind; the games after its
    // withdrawal (three forfeits in a row) are of kind "withdrawn".
    let expected = [
        ("hang", "no answer in 2.0 s [time]"),
        ("crash_start", "cannot load my weights"),
        ("crash_start", "[start]"),
        ("crash_mid", "segmentation fault (pretend)"),
        ("crash_mid", "[crash]"),
        ("garbage", "not JSON"),
        ("garbage", "[malformed]"),
        ("illegal", "not legal"),
        ("illegal", "[illegal]"),
        ("endless", "over 1 MiB"),
        ("endless", "[start]"),
        ("forker", "exited"),
        ("forker", "[start]"),
    ];
    for (bot, words) in expected {
        let found = &reasons[bot];
        // Games run concurrently, so how many start before the withdrawal
        // varies; a withdrawn game quotes the last failure.
        for reason in found.iter().filter(|r| r.ends_with("[withdrawn]")) {
            let prefix = format!("{bot}: withdrawn after 3 forfeits in a row (the last: ");
            assert!(reason.starts_with(&prefix), "{bot}: {found:?}");
        }
        assert_eq!(found.len(), 4, "{bot}: {found:?}");
        assert!(
            found[0].starts_with(&format!("{bot}: ")),
            "{bot}: {found:?}"
        );
        assert!(
            found.iter().any(|r| r.contains(words)),
            "{bot}: {found:?} lacks {words:?}"
        );
    }
    // The Elo table counts forfeits.
    let elo = std::fs::read_to_string(out.join("elo.md")).unwrap();
    assert!(elo.contains("| forfeits |"), "{elo}");
    // Stderr went to the capped logs.
    let log = std::fs::read_to_string(out.join("logs/crash_start.log")).unwrap();
    assert!(log.contains("cannot load my weights"), "{log}");
    // Nothing left running: not the hanging bot, not the forked child.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(leftovers(), "", "processes left behind");

    // SIGTERM in the middle of a tournament kills every bot's group.
    let out = dir.join("stopped");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args([
            "tournament",
            "--rules",
            "ur-2",
            "--agents",
            "random,hang,forker",
            "--games",
            "4",
            "--move-time",
            "60",
            "--out",
            out.to_str().unwrap(),
            "--bots",
            dir.join("bots.toml").to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while leftovers().matches("hang.py").count() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!leftovers().is_empty(), "the hanging bot was started");
    let stop = Instant::now();
    // SAFETY: signalling a child we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert!(
        stop.elapsed() < Duration::from_secs(5),
        "{:?}",
        stop.elapsed()
    );
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(leftovers(), "", "processes left behind after SIGTERM");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The exit handler's list of bot process groups has a fixed size (it
/// cannot allocate in a signal handler): a bot process past it is refused
/// with a start failure, never started unlisted, so SIGTERM still leaves
/// nothing behind. Shown with the limit set to one process.
#[test]
fn bot_processes_past_the_exit_list_are_refused_and_sigterm_leaves_none() {
    let dir = fresh_dir("hostile-limit");
    write_bots(&dir);
    // A marker of its own, so the other test's checks do not see its bots.
    let marker = "sawah-limit-marker";
    let bots = std::fs::read_to_string(dir.join("bots.toml")).unwrap();
    std::fs::write(dir.join("bots.toml"), bots.replace(MARKER, marker)).unwrap();
    let leftovers = || leftovers_marked(marker);
    let out = dir.join("limited");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args([
            "tournament",
            "--rules",
            "ur-2",
            "--agents",
            "random,hang",
            "--games",
            "8",
            "--move-time",
            "60",
            "--out",
            out.to_str().unwrap(),
            "--bots",
            dir.join("bots.toml").to_str().unwrap(),
        ])
        .env("SAWAH_MAX_BOT_PROCESSES", "1")
        .env("RAYON_NUM_THREADS", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // One game waits on the one hanging process; the other game's second
    // process is refused and forfeited.
    let deadline = Instant::now() + Duration::from_secs(20);
    let refused = loop {
        let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
        if results.contains("bot processes would be alive at once") || Instant::now() > deadline {
            break results;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(refused.contains("\"kind\":\"start\""), "{refused}");
    assert_eq!(leftovers().matches("hang.py").count(), 1, "{}", leftovers());
    // SAFETY: signalling a child we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(leftovers(), "", "processes left behind after SIGTERM");
    std::fs::remove_dir_all(&dir).unwrap();
}
