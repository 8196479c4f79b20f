//! Outside bots (`--bots FILE`, docs/bots.md): the harness referees
//! programs and services it did not write. `hard` gives the same games in
//! process, as `sawah bot` on a pipe and as `sawah serve` over HTTP; the
//! example bot plays; `check-bot` reports; a changed bot file is refused
//! on resume; definitions that clash are refused.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{Served, assert_refused, fresh_dir, games, sawah};

fn sawah_bin() -> &'static str {
    env!("CARGO_BIN_EXE_sawah")
}

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bots")
}

/// Every game's luck in a results file, in the order of [`games`].
fn lucks(dir: &Path, first: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut luck: Vec<((u64, bool), Value)> = text
        .lines()
        .skip(1)
        .map(|line| {
            let game: Value = serde_json::from_str(line).unwrap();
            let key = (game["pair"].as_u64().unwrap(), game["light"] == first);
            (key, game["luck"].clone())
        })
        .collect();
    luck.sort_by_key(|l| l.0);
    luck.into_iter().map(|l| l.1).collect()
}

/// `sawah tournament` on ur-2 of `agents` with outside bots from `bots`,
/// `games` a pairing, into `out`, with `extra` options.
fn ur2_tournament(
    agents: &str,
    games: &str,
    out: &Path,
    bots: &Path,
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = vec![
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        agents,
        "--games",
        games,
        "--out",
        out.to_str().unwrap(),
        "--bots",
        bots.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    sawah(&args)
}

#[test]
fn hard_plays_the_same_games_in_process_on_a_pipe_and_over_http() {
    let dir = fresh_dir("outside-three-ways");
    let served = Served::start(&[]);
    let bots = dir.join("bots.toml");
    std::fs::write(
        &bots,
        format!(
            "[[bot]]\nname = \"piped-hard\"\ncommand = [{:?}, \"bot\"]\nbot = \"hard\"\n\n[[bot]]\nname = \"remote-hard\"\nurl = {:?}\nbot = \"hard\"\n",
            sawah_bin(),
            format!("http://{}", served.addr)
        ),
    )
    .unwrap();
    let mut results = Vec::new();
    let mut luck = Vec::new();
    for hard in ["hard", "piped-hard", "remote-hard"] {
        let out = dir.join(hard);
        let agents = format!("{hard},random");
        // The referee measures the luck, whoever plays: outside bots' games
        // are adjusted as ours are.
        let extra = ["--seed", "5", "--luck-adjusted"];
        let (code, stdout, stderr) = ur2_tournament(&agents, "24", &out, &bots, &extra);
        assert_eq!(code, 0, "{hard}: {stdout}\n{stderr}");
        assert!(stdout.contains("| adj. Elo |"), "{stdout}");
        results.push(games(&out, hard));
        luck.push(lucks(&out, hard));
    }
    assert_eq!(results[0].len(), 24);
    assert!(results[0].iter().all(|g| g.4.is_null()), "no forfeits");
    assert_eq!(results[0], results[1], "in process and on a pipe");
    assert_eq!(results[0], results[2], "in process and over HTTP");
    assert!(luck[0].iter().all(|l| l.is_object()), "{:?}", luck[0]);
    assert_eq!(luck[0], luck[1], "the same luck in process and on a pipe");
    assert_eq!(luck[0], luck[2], "the same luck in process and over HTTP");
    // The header records the bot as written and what it said to hello.
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(dir.join("piped-hard/results.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["identities"][0]["name"], "sawah-ai");
    assert!(
        header["specs"][0]
            .as_str()
            .unwrap()
            .contains(r#""bot":"hard""#),
        "{header}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_standard_library_example_bot_plays_and_passes_check_bot() {
    let bots = examples().join("bots.toml");
    let dir = fresh_dir("outside-example");
    let out = dir.join("t");
    let (code, stdout, stderr) = ur2_tournament("py-stdlib,random,easy", "20", &out, &bots, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("py-stdlib"), "{stdout}");
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(!text.contains("\"failure\""), "no forfeits: {text}");
    assert!(text.contains(r#""name":"python-stdlib""#), "hello recorded");
    let (code, stdout, stderr) = sawah(&[
        "check-bot",
        "py-stdlib",
        "--bots",
        bots.to_str().unwrap(),
        "--rules",
        "ur,senet,sawah-2",
        "--positions",
        "30",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["passed"], true, "{report}");
    let rules = report["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 3);
    for r in rules {
        assert_eq!(r["asked"], 30, "{r}");
        assert_eq!(r["legal"], 30, "{r}");
        assert!(
            r["edge_cases"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "no legal move"),
            "{r}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_bot_fails_a_bot_that_answers_illegal_moves_and_says_why() {
    let dir = fresh_dir("outside-check-fail");
    std::fs::write(
        dir.join("illegal.py"),
        "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n    print(json.dumps({'id': r.get('id'), 'move': {'from': 99, 'to': 100}}), flush=True)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bots.toml"),
        "[[bot]]\nname = \"illegal\"\ncommand = [\"python3\", \"illegal.py\"]\n",
    )
    .unwrap();
    let bots = dir.join("bots.toml");
    let (code, stdout, _) = sawah(&[
        "check-bot",
        "illegal",
        "--bots",
        bots.to_str().unwrap(),
        "--rules",
        "ur",
        "--positions",
        "10",
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains("not legal"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_changed_bot_file_is_refused_on_resume() {
    let dir = fresh_dir("outside-resume");
    std::fs::copy(examples().join("python_stdlib.py"), dir.join("bot.py")).unwrap();
    std::fs::write(
        dir.join("bots.toml"),
        "[[bot]]\nname = \"mine\"\ncommand = [\"python3\", \"bot.py\"]\n",
    )
    .unwrap();
    let bots = dir.join("bots.toml");
    let out = dir.join("t");
    let run = || ur2_tournament("mine,random", "4", &out, &bots, &[]);
    let (code, stdout, stderr) = run();
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let header = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(
        header.contains(r#""option":"program","name":"bot.py""#),
        "{header}"
    );
    let mut changed = std::fs::read_to_string(dir.join("bot.py")).unwrap();
    changed.push_str("# changed\n");
    std::fs::write(dir.join("bot.py"), changed).unwrap();
    let (code, _, stderr) = run();
    assert_ne!(code, 0);
    assert!(stderr.contains("program file bot.py of mine"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bot_definitions_that_clash_or_do_not_start_are_refused() {
    let dir = fresh_dir("outside-defs");
    let bots = dir.join("bots.toml");
    std::fs::write(&bots, "[[bot]]\nname = \"hard\"\ncommand = [\"x\"]\n").unwrap();
    let bots_arg = bots.to_str().unwrap();
    assert_refused(
        &[
            "match", "hard", "random", "--rules", "ur-2", "--bots", bots_arg,
        ],
        "taken",
    );
    std::fs::write(
        &bots,
        "[[bot]]\nname = \"nowhere\"\ncommand = [\"/no/such/program\"]\n",
    )
    .unwrap();
    assert_refused(
        &[
            "match", "nowhere", "random", "--rules", "ur-2", "--bots", bots_arg,
        ],
        "could not start \"/no/such/program\"",
    );
    assert_refused(
        &[
            "match", "nobody", "random", "--rules", "ur-2", "--bots", bots_arg,
        ],
        "bots defined in --bots: nowhere",
    );
    assert_refused(
        &[
            "match",
            "random",
            "random",
            "--rules",
            "ur-2",
            "--move-time",
            "0",
        ],
        "--move-time",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_person_plays_an_outside_bot_and_wins_when_it_fails() {
    let bots = examples().join("bots.toml");
    let play = |opponent: &str, bots: &Path| {
        let mut child = Command::new(sawah_bin())
            .args([
                "play",
                "--rules",
                "ur-2",
                "--side",
                "dark",
                "--seed",
                "4",
                "--opponent",
                opponent,
                "--bots",
                bots.to_str().unwrap(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        // Always the first move; the review offered at the end is declined.
        let _ = stdin.write_all("1\n".repeat(300).as_bytes());
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, stdout) = play("py-stdlib", &bots);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("computer (py-stdlib:"), "{stdout}");
    assert!(
        stdout.contains("You win!") || stdout.contains("The computer wins."),
        "{stdout}"
    );
    let dir = fresh_dir("outside-play");
    std::fs::write(
        dir.join("garbage.py"),
        "import sys\nfor line in sys.stdin:\n    print('{not json', flush=True)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bots.toml"),
        "[[bot]]\nname = \"garbage\"\ncommand = [\"python3\", \"garbage.py\"]\n",
    )
    .unwrap();
    let (code, stdout) = play("garbage", &dir.join("bots.toml"));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("forfeits: garbage: answered with a line that is not JSON"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Rust example bot, which `cargo test` builds beside the binary.
fn rust_example() -> std::path::PathBuf {
    let bin = Path::new(sawah_bin());
    let example = bin
        .parent()
        .unwrap()
        .join("examples")
        .join(format!("rust_bot{}", std::env::consts::EXE_SUFFIX));
    assert!(
        example.exists(),
        "{} is missing: `cargo test --workspace` builds the examples (or run cargo build --example rust_bot)",
        example.display()
    );
    example
}

#[test]
fn the_rust_example_bot_plays_random_and_easy_without_a_forfeit() {
    let dir = fresh_dir("outside-rust");
    let bots = dir.join("bots.toml");
    std::fs::write(
        &bots,
        format!(
            "[[bot]]\nname = \"rust\"\ncommand = [{:?}]\n",
            rust_example().display().to_string()
        ),
    )
    .unwrap();
    let out = dir.join("t");
    let (code, stdout, stderr) = ur2_tournament("rust,random,easy", "20", &out, &bots, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(!text.contains("\"failure\""), "no forfeits: {text}");
    assert!(text.contains(r#""name":"rust-example""#), "hello recorded");
    // The Elo table rates it.
    let elo = std::fs::read_to_string(out.join("elo.json")).unwrap();
    assert!(elo.contains("\"rust\""), "{elo}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a bot author reads after a tournament: a debug print on stdout
/// costs one error per game, with the hint to log to stderr, never a
/// cascade of answers one request behind; a move of the wrong shape is
/// malformed (not illegal) and shows the expected shape; the table
/// explains forfeits by kind and gives the whole command with the bots
/// file's SHA-256.
#[test]
fn forfeits_are_explained_by_kind_and_the_command_reproduces_the_tournament() {
    let dir = fresh_dir("outside-forfeits");
    std::fs::write(
        dir.join("debug.py"),
        "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n    if r['cmd'] == 'hello':\n        print(json.dumps({'id': r['id'], 'name': 'debugger'}), flush=True)\n        continue\n    print('thinking about', r.get('roll'), flush=True)\n    m = r['moves'][0]\n    print(json.dumps({'id': r['id'], 'move': {'from': m['from'], 'to': m['to']}}), flush=True)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("shape.py"),
        "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n    if r['cmd'] == 'hello':\n        print(json.dumps({'id': r['id']}), flush=True)\n        continue\n    m = r['moves'][0]\n    print(json.dumps({'id': r['id'], 'move': {'from': str(m['from']), 'to': str(m['to'])}}), flush=True)\n",
    )
    .unwrap();
    let bots = dir.join("bots.toml");
    std::fs::write(
        &bots,
        "[[bot]]\nname = \"debug\"\ncommand = [\"python3\", \"debug.py\"]\n\n[[bot]]\nname = \"shape\"\ncommand = [\"python3\", \"shape.py\"]\n",
    )
    .unwrap();
    let out = dir.join("t");
    let (code, stdout, stderr) = sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        "debug,shape,random",
        "--bots",
        bots.to_str().unwrap(),
        "--withdraw-after",
        "100",
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let mut kinds = std::collections::BTreeMap::new();
    for line in text.lines().skip(1) {
        let game: Value = serde_json::from_str(line).unwrap();
        let failure = &game["failure"];
        if failure.is_null() {
            continue;
        }
        let message = failure["message"].as_str().unwrap();
        assert!(!message.contains("when asked request"), "{message}");
        if message.starts_with("debug: ") {
            assert!(
                message.contains("not JSON") && message.contains("write logs to stderr"),
                "{message}"
            );
        } else {
            assert!(
                message.starts_with("shape: answered a move of the wrong shape: {\"from\":\""),
                "{message}"
            );
            assert!(message.contains("a move is {\"from\":SQUARE"), "{message}");
        }
        *kinds
            .entry(failure["kind"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    // Each bot forfeits every game it moves in: 8 games each, less the
    // games between the two where the other forfeited first.
    assert_eq!(kinds.keys().collect::<Vec<_>>(), ["malformed"], "{kinds:?}");
    let elo = std::fs::read_to_string(out.join("elo.md")).unwrap();
    assert!(elo.contains("## Forfeits"), "{elo}");
    assert!(elo.contains("| debug | malformed |"), "{elo}");
    assert!(elo.contains("## Head to head"), "{elo}");
    let command = elo
        .lines()
        .find(|l| l.starts_with("Command: `"))
        .unwrap_or_default();
    assert!(
        command.contains("--withdraw-after 100") && command.contains("--bots "),
        "{command}"
    );
    let sha = sawah_workflows::digest::sha256_file(&bots).unwrap();
    assert!(command.ends_with(&format!("SHA-256 {sha})")), "{command}");
    // Reviewing a forfeited game says who forfeited, the kind and the
    // message, before the moves; in the terminal's text and in Markdown.
    let number = text
        .lines()
        .skip(1)
        .position(|line| line.contains("\"failure\""))
        .unwrap()
        + 1;
    let results = out.join("results.jsonl").display().to_string();
    for format in ["text", "md"] {
        let (code, stdout, stderr) = sawah(&[
            "review",
            &results,
            "--game-number",
            &number.to_string(),
            "--format",
            format,
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains("by forfeit)") && !stdout.contains("nobody yet"),
            "{format}: {stdout}"
        );
        let said = stdout.find("forfeited (malformed)").unwrap_or(usize::MAX);
        assert!(said < stdout.len(), "{format}: {stdout}");
        assert!(stdout[said..].contains("answered"), "{format}: {stdout}");
        if format == "text" {
            assert!(!stdout.contains('`'), "{stdout}");
            assert!(stdout.lines().all(|l| l.chars().count() <= 80), "{stdout}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A one-request-at-a-time HTTP server on loopback answering every request
/// with `answer`; returns its port and a count of the connections it took.
fn http_server(answer: String) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(200)));
            let mut buffer = [0u8; 65536];
            let _ = stream.read(&mut buffer);
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (port, hits)
}

/// A hostile HTTP bot reaches nothing but its own address: its redirect
/// is a forfeit naming where it pointed, never followed (the other
/// server is never asked, its body never recorded); a loopback bot is
/// reached directly whatever proxy the environment names; and the
/// password in its URL is written as `***` everywhere.
#[test]
fn an_http_bot_cannot_redirect_the_harness_and_its_password_is_not_written() {
    let secret = "SECRET-INTERNAL-DATA token=abc123";
    let (secret_port, secret_hits) = http_server(format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{secret}",
        secret.len()
    ));
    let (port, _) = http_server(format!(
        "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{secret_port}/secret\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ));
    let dir = fresh_dir("outside-redirect");
    let bots = dir.join("bots.toml");
    std::fs::write(
        &bots,
        format!("[[bot]]\nname = \"mover\"\nurl = \"http://me:secretpw@127.0.0.1:{port}\"\n"),
    )
    .unwrap();
    let out = dir.join("t");
    let output = Command::new(sawah_bin())
        .args([
            "tournament",
            "--rules",
            "ur-2",
            "--agents",
            "mover,random",
            "--games",
            "2",
        ])
        .arg("--bots")
        .arg(&bots)
        .arg("--out")
        .arg(&out)
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .env("ALL_PROXY", "http://127.0.0.1:9")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let written = format!(
        "{stdout}{results}{}",
        std::fs::read_to_string(out.join("elo.md")).unwrap()
    );
    assert!(!written.contains("SECRET"), "{written}");
    assert!(!written.contains("secretpw"), "{written}");
    assert!(written.contains("me:***@127.0.0.1"), "{written}");
    assert!(
        results.contains(&format!(
            "answered HTTP 302 Found pointing to \\\"http://127.0.0.1:{secret_port}/secret\\\""
        )),
        "{results}"
    );
    assert_eq!(secret_hits.load(std::sync::atomic::Ordering::SeqCst), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
