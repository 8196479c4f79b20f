//! The `sawah serve` binary: it gives the same answers as `sawah bot
//! --untrusted` for the same requests, stops cleanly on SIGTERM, refuses to
//! start with a bad table, and the load tool measures it.

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{Served, assert_refused, sawah};

#[test]
fn the_server_answers_as_sawah_bot_does_and_stops_cleanly_on_sigterm() {
    let server = Served::start(&[]);
    let requests = [
        json!({"id": 1, "cmd": "list_rules"}),
        json!({"id": 2, "cmd": "rules", "rules": "senet"}),
        json!({"id": 3, "cmd": "start", "rules": "masters"}),
        json!({"id": 4, "cmd": "legal_moves", "position": "ur light 5/1,6/0 6/3/0", "roll": 3}),
        json!({"id": 5, "cmd": "choose", "position": "ur light 5/1,6/0 6/3/0", "roll": 3, "bot": "hard"}),
        json!({"id": 6, "cmd": "choose", "position": "ur light 5/1,6/0 6/3/0", "roll": 3, "bot": "medium:seed=4"}),
        json!({"id": 7, "cmd": "evaluate", "position": "sawah dark 5/2,7/0 4/1,9/1", "bot": "expectiminimax:depth=2"}),
        json!({"id": 8, "cmd": "daily", "date": "2026-12-02", "count": 10}),
        json!({"id": 9, "cmd": "choose", "position": "ur light 5/1,6/0 6/3/0", "roll": 3, "bot": "neural:model=/etc/passwd"}),
        json!({"id": 10, "cmd": "choose", "position": "ur light 9/1/0 6/3/0", "roll": 3, "bot": "easy"}),
        json!({"id": 11, "cmd": "fly"}),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut bot = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(["bot", "--untrusted"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    bot.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = bot.wait_with_output().unwrap();
    let expected: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(expected.len(), requests.len());
    for (request, expected) in requests.iter().zip(&expected) {
        let (status, body) = server.call("POST", "/v1/request", &request.to_string());
        let got: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(&got, expected, "{request}");
        assert_eq!(
            status == 200,
            expected.get("error").is_none(),
            "{request}: {status}"
        );
    }
    // The batch route gives the same answers, in order.
    let batch = Value::Array(requests.to_vec()).to_string();
    let (status, body) = server.call("POST", "/v1/request", &batch);
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        Value::Array(expected)
    );
    assert_eq!(server.terminate(), Some(0));
}

#[test]
fn a_bad_table_stops_the_start_with_its_name() {
    assert_refused(
        &["serve", "--addr", "127.0.0.1:0", "--table", "ur=/dev/null"],
        "/dev/null",
    );
    assert_refused(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--models",
            "/no/such/folder",
        ],
        "/no/such/folder",
    );
}

#[test]
fn the_load_tool_reports_throughput_latency_and_errors() {
    let server = Served::start(&[]);
    let url = format!("http://{}", server.addr);
    let (code, stdout, stderr) = sawah(&[
        "loadtest",
        &url,
        "--rules",
        "ur",
        "--bot",
        "hard",
        "--concurrency",
        "4",
        "--requests",
        "200",
        "--positions",
        "50",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("200 answered"), "{stdout}");
    assert!(stdout.contains("errors 0 "), "{stdout}");
    assert!(stdout.contains("p99"), "{stdout}");
    // Unbounded runs and other schemes are refused.
    let (code, _, stderr) = sawah(&["loadtest", &url]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--requests or --seconds"), "{stderr}");
    let (code, _, stderr) = sawah(&["loadtest", "https://example.com", "--requests", "1"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("https"), "{stderr}");
    assert_eq!(server.terminate(), Some(0));
}

#[test]
fn a_fifo_given_as_a_table_or_a_model_is_refused_at_once_rather_than_waited_on() {
    let dir = crate::common::fresh_dir("serve-fifo");
    let fifo = dir.join("table.sawah");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let fifo = fifo.to_str().unwrap();
    let table = format!("ur={fifo}");
    // Each of these hung before: opening a FIFO waits for a writer.
    assert_refused(
        &["serve", "--addr", "127.0.0.1:0", "--table", &table],
        "not a regular file",
    );
    assert_refused(
        &["serve", "--addr", "127.0.0.1:0", "--table", fifo],
        "not a regular file",
    );
    assert_refused(&["bot", "--table", &table], "not a regular file");
    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    let manifest = models.join("manifest.json");
    assert!(
        Command::new("mkfifo")
            .arg(&manifest)
            .status()
            .unwrap()
            .success()
    );
    assert_refused(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--models",
            models.to_str().unwrap(),
        ],
        "not a regular file",
    );
    // A trusted bot reads what a request names by path, but only regular
    // files: a FIFO is an error line, not a hang.
    let request = json!({"cmd": "choose", "position": "ur light 7/-/0 7/-/0", "roll": 2,
        "bot": format!("neural:model={fifo}")});
    let mut bot = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .arg("bot")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = bot.stdin.take().unwrap();
    writeln!(stdin, "{request}").unwrap();
    drop(stdin);
    let output = bot.wait_with_output().unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["error"]["kind"], "invalid_bot", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{answer}"
    );
}

#[test]
fn a_depth_bound_the_levels_would_break_stops_the_start_with_what_to_do() {
    assert_refused(
        &["serve", "--addr", "127.0.0.1:0", "--max-depth", "1"],
        "raise --max-depth",
    );
}

#[test]
fn the_load_tool_stops_at_its_seconds_even_when_the_server_never_answers() {
    // A server that accepts connections and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = sawah(&[
        "loadtest",
        &format!("http://{addr}"),
        "--seconds",
        "1",
        "--positions",
        "10",
    ]);
    let took = started.elapsed();
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("still unanswered"), "{stdout}");
    assert!(
        took < std::time::Duration::from_secs(6),
        "--seconds 1 took {took:?}"
    );
}

#[test]
fn connection_limits_out_of_range_stop_the_start_with_the_flag_named() {
    for bad in ["0", "99999999999"] {
        assert_refused(
            &["serve", "--addr", "127.0.0.1:0", "--max-connections", bad],
            "--max-connections must be from 1 to 1048576",
        );
    }
    assert_refused(
        &["serve", "--addr", "127.0.0.1:0", "--header-timeout", "0"],
        "--header-timeout must be a positive number of seconds",
    );
}
