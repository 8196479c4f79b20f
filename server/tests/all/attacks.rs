//! `sawah serve` attacked the way an attacker would, at default settings
//! unless a test says otherwise, each attack with the bound it must hold:
//! peak memory, the time until others are served again, the time until a
//! slow connection is closed, the time to exit after SIGTERM, and reviews
//! that are the unlimited answer or an explicit refusal.
//!
//! Each test runs the server in a process of its own (this test binary run
//! again with `SAWAH_ATTACK_SERVER` set, see [`server_process`]), so its
//! memory and its signals are its own; the clients are plain sockets, so
//! an attack can do what a well-behaved client never would.

use sawah_agents::RandomAgent;
use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use sawah_eval::arena::gamelog::play_recorded;
use sawah_protocol::Bot;
use sawah_protocol::native::{self, Limits, Setup};
use sawah_server::Config;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the server process to its settings (JSON, see [`settings`]).
const SERVER_ENV: &str = "SAWAH_ATTACK_SERVER";

fn models_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")
}

/// The server's settings: the defaults with two workers (this machine's
/// cores) and what `overrides` changes (durations in milliseconds).
fn settings(overrides: &Value) -> (Config, Limits) {
    let mut config = Config {
        workers: 2,
        ..Config::default()
    };
    let ms = |key: &str| overrides[key].as_u64().map(Duration::from_millis);
    if let Some(n) = overrides["max_connections"].as_u64() {
        config.max_connections = n as usize;
    }
    if let Some(d) = ms("header_timeout_ms") {
        config.header_timeout = d;
    }
    if let Some(d) = ms("body_timeout_ms") {
        config.body_timeout = d;
    }
    if let Some(d) = ms("write_timeout_ms") {
        config.write_timeout = d;
    }
    if let Some(d) = ms("shutdown_timeout_ms") {
        config.shutdown_timeout = d;
    }
    if let Some(n) = overrides["answer_memory_mib"].as_u64() {
        config.answer_memory = n as usize * (1 << 20);
    }
    if let Some(d) = ms("time_budget_ms") {
        config.limits.time_budget = Some(d);
    }
    if let Some(n) = overrides["max_nodes"].as_u64() {
        config.limits.max_nodes = Some(n);
    }
    (config.clone(), config.limits)
}

/// The server process the other tests start: runs only when
/// `SAWAH_ATTACK_SERVER` is set, prints its address, serves until SIGTERM
/// or SIGINT (a second one forces the end), then prints `stopped`.
#[test]
#[ignore = "the server process the other tests start"]
fn server_process() {
    let Ok(overrides) = std::env::var(SERVER_ENV) else {
        return;
    };
    let overrides: Value = serde_json::from_str(&overrides).unwrap();
    let (config, limits) = settings(&overrides);
    let setup = Setup {
        models: Some(Models::load(&models_dir()).unwrap()),
        tables: Vec::new(),
        untrusted: true,
        limits,
    };
    let bot = native::bot(Registry::new(), &setup).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("listening on {}", listener.local_addr().unwrap());
        let (shutdown, force) = sawah_server::shutdown_signals();
        sawah_server::serve(listener, bot, &config, shutdown, force)
            .await
            .unwrap();
    });
    println!("stopped");
}

/// A server process; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(overrides: Value) -> Server {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "attacks::server_process",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env(SERVER_ENV, overrides.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("the server process prints its address")
                .unwrap();
            if let Some(addr) = line.strip_prefix("listening on ") {
                break addr.parse().unwrap();
            }
        };
        // Keep reading its output, so it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Server { child, addr }
    }

    fn defaults() -> Server {
        Server::start(json!({}))
    }

    /// The most resident memory the server has used, in MB (VmHWM).
    fn peak_mb(&self) -> f64 {
        status_kb(self.child.id(), "VmHWM:") / 1024.0
    }

    /// One request on a connection of its own: status and body.
    fn call(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        call(self.addr, method, path, body)
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(sent.success());
    }

    /// Waits up to `limit` for the process to exit: how long it took.
    fn exited_within(&mut self, limit: Duration) -> Option<Duration> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.child.try_wait().unwrap().is_some() {
                return Some(started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// A metric's value from `/metrics`.
    fn metric(&self, name: &str) -> f64 {
        let (_, text) = self.call("GET", "/metrics", "");
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A field of `/proc/PID/status`, in kB.
fn status_kb(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap()
}

/// The bytes of one HTTP/1.1 request that closes its connection after.
fn request_bytes(method: &str, path: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One request on its own connection: the status and the body (status 0
/// when the connection closed without an answer).
fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream
        .write_all(&request_bytes(method, path, body))
        .unwrap();
    read_answer(&mut stream)
}

fn read_answer(stream: &mut TcpStream) -> (u16, String) {
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let Some((head, body)) = answer.split_once("\r\n\r\n") else {
        return (0, answer);
    };
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, body.to_string())
}

/// A request for Senet's largest `daily` answer: 100,000 throws, about
/// 200 KB.
const LARGEST_DAILY: &[u8] =
    b"GET /v1/daily/2026-12-05?count=100000 HTTP/1.1\r\nhost: test\r\n\r\n";

/// A client that asks for the largest `daily` answer up to `times` times on
/// one connection and reads none: once the socket buffers are full, the
/// server holds an answer for it. A write that waits `patience` ends the
/// asking. `None` if it cannot connect.
fn deaf_client(addr: SocketAddr, times: usize, patience: Duration) -> Option<TcpStream> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_write_timeout(Some(patience)).ok()?;
    for _ in 0..times {
        if stream.write_all(LARGEST_DAILY).is_err() {
            break;
        }
    }
    Some(stream)
}

/// A client stuck in its headers: it sends part of a request and never the
/// rest.
fn stuck_in_headers(addr: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: te")
        .unwrap();
    stream
}

/// A game of random moves on `rules`, as a record (played by the
/// harness's own recorder).
fn random_game(rules: &str, seed: u64) -> Value {
    let game = sawah_engine::race::preset(rules).unwrap();
    let (mut light, mut dark) = (RandomAgent::new(seed), RandomAgent::new(seed + 1));
    let played = play_recorded(&game, &mut light, &mut dark, seed);
    json!({"rules": rules, "moves": played.moves})
}

/// A position of masters from the middle of a random game.
const MASTERS_MIDGAME: &str = "masters light 4/2,6,9/0 3/3,8,12,14/0";

/// A batch of `n` reviews of different masters games by the deepest
/// reference a request may name: each costs seconds, up to the node
/// budget (at most 27 fit a batch's 5,000 turns).
fn heavy_batch(n: usize) -> String {
    let bot = "neural:model=masters-hard.safetensors:depth=3:pruning=false";
    let reviews: Vec<Value> = (0..n)
        .map(
            |i| json!({"cmd": "review", "game": random_game("masters", 10 + i as u64), "bot": bot}),
        )
        .collect();
    Value::Array(reviews).to_string()
}

/// The native answer with no limits: what `sawah bot` gives.
fn unlimited(request: &Value) -> Value {
    let bot = Bot::new(Registry::new())
        .with_models(Some(Models::load(&models_dir()).unwrap()))
        .unwrap();
    bot.respond(request)
}

/// Sends `body` to `/v1/request` and closes the connection at once.
fn send_and_leave(addr: SocketAddr, body: &str) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .write_all(&request_bytes("POST", "/v1/request", body))
        .unwrap();
    let _ = stream.shutdown(Shutdown::Both);
}

/// A cheap request, retried after `Retry-After` as a client should: its
/// answer and how long until it was served.
fn cheap_request_served(server: &Server) -> ((u16, String), Duration) {
    let started = Instant::now();
    let body = json!({"position": "ur light 7/-/0 7/-/0", "roll": 2, "bot": "easy"}).to_string();
    loop {
        let answer = server.call("POST", "/v1/choose", &body);
        if answer.0 != 503 || started.elapsed() > Duration::from_secs(30) {
            return (answer, started.elapsed());
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[test]
fn abandoned_heavy_batches_do_not_lock_other_clients_out() {
    let server = Server::defaults();
    // 135 batches of 16 heavy reviews, sent at once, their connections
    // closed as soon as they are sent: hours of work nobody waits for.
    let body = heavy_batch(16);
    for _ in 0..135 {
        send_and_leave(server.addr, &body);
    }
    // A cheap request is served again within 10 s.
    let ((status, text), waited) = cheap_request_served(&server);
    assert_eq!(status, 200, "{text}");
    assert!(waited < Duration::from_secs(10), "served after {waited:?}");
    eprintln!("after the burst, a cheap request was served in {waited:?}");
    let (status, ready) = server.call("GET", "/readyz", "");
    assert_eq!(status, 200, "{ready}");
}

#[test]
fn the_work_of_clients_that_went_away_is_dropped() {
    let server = Server::defaults();
    // Four batches that fit the queue together, each many seconds of
    // work, whose clients leave once their jobs are queued or running:
    // none of it is finished.
    let body = heavy_batch(4);
    let clients: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut stream = TcpStream::connect(server.addr).unwrap();
            stream
                .write_all(&request_bytes("POST", "/v1/request", &body))
                .unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    drop(clients);
    let ((status, text), waited) = cheap_request_served(&server);
    assert_eq!(status, 200, "{text}");
    assert!(waited < Duration::from_secs(10), "served after {waited:?}");
    // A job running when its client left is counted once its search next
    // looks at its stop: the cheap request may be served on the other
    // worker before that. Every one is counted within a few seconds.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.metric("sawah_jobs_abandoned_total") < 4.0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(server.metric("sawah_jobs_abandoned_total"), 4.0);
    assert_eq!(
        server.metric("sawah_jobs_answered_total"),
        1.0,
        "the cheap one"
    );
}

#[test]
fn a_client_sending_its_headers_a_byte_at_a_time_is_closed_within_20_s() {
    let server = Server::defaults();
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let started = Instant::now();
    let head = b"GET /healthz HTTP/1.1\r\nhost: test\r\nx-slow: ";
    let mut closed = None;
    'trickle: for byte in head.iter().chain(std::iter::repeat(&b'a')) {
        if stream.write_all(&[*byte]).is_err() {
            closed = Some(started.elapsed());
            break;
        }
        // Wait a second between bytes, watching for the close.
        for _ in 0..10 {
            let mut buf = [0u8; 256];
            match stream.read(&mut buf) {
                Ok(0) => {
                    closed = Some(started.elapsed());
                    break 'trickle;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => {
                    closed = Some(started.elapsed());
                    break 'trickle;
                }
            }
        }
        if started.elapsed() > Duration::from_secs(30) {
            break;
        }
    }
    let closed = closed.expect("the slow connection is closed");
    eprintln!("the slow connection was closed after {closed:?}");
    assert!(closed <= Duration::from_secs(20), "closed after {closed:?}");
    // Meanwhile the server answered everyone else.
    assert_eq!(server.call("GET", "/healthz", "").0, 200);
}

#[test]
fn connections_past_the_limit_get_a_json_503_and_health_checks_still_answer() {
    let server = Server::start(json!({"max_connections": 40, "header_timeout_ms": 60_000}));
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    // Let the server take them all.
    std::thread::sleep(Duration::from_millis(300));
    let (status, body) = server.call("GET", "/healthz", "");
    assert_eq!(status, 503, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["kind"], "overloaded");
    // One closes: the next health check is answered.
    drop(idle);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.call("GET", "/healthz", "").0, 200);
}

#[test]
fn a_client_that_does_not_read_its_answers_is_closed_after_the_write_timeout() {
    let server = Server::start(json!({"write_timeout_ms": 1000}));
    // Ask for 100,000 throws (about 200 KB) again and again on one
    // connection, and never read: the answers fill the socket buffers.
    let mut stream = deaf_client(server.addr, 400, Duration::from_secs(20)).unwrap();
    // The server gave up on the connection: its answers no longer hold
    // memory, and it answers others.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let held = server.metric("sawah_answer_memory_bytes");
        if held == 0.0 {
            break;
        }
        assert!(Instant::now() < deadline, "{held} bytes still held");
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut rest = Vec::new();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // Reading now finds the end of a connection the server closed (after
    // the answers the socket buffers had taken).
    let end = stream.read_to_end(&mut rest);
    assert!(
        !matches!(&end, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
        "the connection is still open: {end:?}"
    );
    assert_eq!(server.call("GET", "/healthz", "").0, 200);
}

#[test]
fn answers_waiting_to_be_read_are_held_within_the_answer_memory() {
    let server = Server::start(json!({"answer_memory_mib": 1, "write_timeout_ms": 5000}));
    // Ten clients that ask for 200 KB answers again and again and read
    // none: once the socket buffers are full, each holds an answer.
    let deaf: Vec<TcpStream> = (0..10)
        .map(|_| deaf_client(server.addr, 200, Duration::from_millis(500)).unwrap())
        .collect();
    // Once the answers held fill the budget, another large answer does not
    // fit: 503, not more memory.
    let filled = Instant::now() + Duration::from_secs(4);
    while server.metric("sawah_answer_memory_bytes") < 800.0 * 1024.0 && Instant::now() < filled {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, body) = server.call("GET", "/v1/daily/2026-12-05?count=100000", "");
    assert_eq!(status, 503, "{}", &body[..body.len().min(200)]);
    assert!(body.contains("answer memory"), "{body}");
    assert!(server.metric("sawah_answer_memory_bytes") <= 1024.0 * 1024.0);
    // Once the write timeout has closed the deaf clients, it fits again.
    std::thread::sleep(Duration::from_secs(7));
    let (status, _) = server.call("GET", "/v1/daily/2026-12-05?count=100000", "");
    assert_eq!(status, 200);
    drop(deaf);
}

#[test]
fn memory_stays_under_300_mb_under_the_worst_requests_the_limits_allow() {
    let server = Server::defaults();
    let addr = server.addr;
    let attacks: Vec<std::thread::JoinHandle<()>> = vec![
        // Batches asking for far more than one request's output: refused.
        std::thread::spawn(move || {
            let daily = json!({"cmd": "daily", "date": "2026-12-05", "count": 100_000});
            let body = Value::Array(vec![daily; 64]).to_string();
            for _ in 0..20 {
                let (status, text) = call(addr, "POST", "/v1/request", &body);
                assert_eq!(status, 413, "{text}");
            }
        }),
        // Forty clients that ask for the largest daily answer and read
        // nothing, on many connections.
        std::thread::spawn(move || {
            let streams: Vec<TcpStream> = (0..40)
                .filter_map(|_| deaf_client(addr, 30, Duration::from_secs(2)))
                .collect();
            std::thread::sleep(Duration::from_secs(5));
            drop(streams);
        }),
        // Bodies at the size limit that parse into large JSON trees.
        std::thread::spawn(move || {
            let junk = "0,".repeat(30_000);
            let body = format!("{{\"cmd\":\"hello\",\"junk\":[{junk}0]}}");
            for _ in 0..40 {
                let (status, _) = call(addr, "POST", "/v1/request", &body);
                assert!(status == 200 || status == 503, "{status}");
            }
        }),
        // Reviews of 5,000 turns, the most a review may have, by the
        // deepest reference allowed: refused at the node budget.
        std::thread::spawn(move || {
            let game = json!({"rules": "ur", "moves": vec!["0:pass"; 5000]});
            let bot = "neural:model=ur-hard.safetensors:depth=3:pruning=false";
            let body = json!({"game": game, "bot": bot}).to_string();
            for _ in 0..4 {
                let (status, text) = call(addr, "POST", "/v1/review", &body);
                let head: String = text.chars().take(300).collect();
                assert!(status == 422 || status == 503, "{status} {head}");
            }
        }),
        // Heavy batches, abandoned.
        std::thread::spawn(move || {
            let body = heavy_batch(16);
            for _ in 0..40 {
                if let Ok(mut stream) = TcpStream::connect(addr) {
                    let _ = stream.write_all(&request_bytes("POST", "/v1/request", &body));
                }
            }
        }),
        // A thousand connections that send nothing.
        std::thread::spawn(move || {
            let idle: Vec<TcpStream> = (0..1000)
                .filter_map(|_| TcpStream::connect(addr).ok())
                .collect();
            std::thread::sleep(Duration::from_secs(5));
            drop(idle);
        }),
    ];
    for attack in attacks {
        attack.join().unwrap();
    }
    let peak = server.peak_mb();
    eprintln!("peak resident memory under the mix: {peak:.0} MB");
    assert!(peak <= 300.0, "peak resident memory {peak:.0} MB");
    assert_eq!(server.call("GET", "/healthz", "").0, 200);
}

#[test]
fn after_sigterm_the_server_exits_within_25_s_whatever_its_clients_do() {
    let mut server = Server::defaults();
    // One client stuck in its headers, one that does not read its answer.
    let _stuck = stuck_in_headers(server.addr);
    let _deaf = deaf_client(server.addr, 100, Duration::from_secs(2)).unwrap();
    server.signal("-TERM");
    let exited = server.exited_within(Duration::from_secs(40));
    let exited = exited.expect("the server exits");
    eprintln!("exited {exited:?} after SIGTERM at the defaults");
    assert!(
        exited <= Duration::from_secs(25),
        "exited {exited:?} after SIGTERM"
    );
}

#[test]
fn the_shutdown_timeout_closes_what_is_still_open_and_a_second_signal_exits_at_once() {
    // Timeouts too long to end the stuck client themselves.
    let mut server = Server::start(json!({
        "header_timeout_ms": 120_000, "shutdown_timeout_ms": 2_000}));
    let _stuck = stuck_in_headers(server.addr);
    std::thread::sleep(Duration::from_millis(200));
    server.signal("-TERM");
    let exited = server.exited_within(Duration::from_secs(20)).unwrap();
    assert!(
        exited >= Duration::from_millis(1500) && exited <= Duration::from_secs(8),
        "exited {exited:?} after SIGTERM with a 2 s shutdown timeout"
    );

    let mut server = Server::start(json!({
        "header_timeout_ms": 120_000, "shutdown_timeout_ms": 120_000}));
    let _stuck = stuck_in_headers(server.addr);
    std::thread::sleep(Duration::from_millis(200));
    server.signal("-TERM");
    assert!(
        server.exited_within(Duration::from_secs(1)).is_none(),
        "the first signal waits for the stuck client"
    );
    server.signal("-INT");
    let exited = server.exited_within(Duration::from_secs(10)).unwrap();
    assert!(
        exited <= Duration::from_secs(4),
        "exited {exited:?} after the second signal"
    );
}

#[test]
fn reviews_and_hints_are_the_unlimited_answer_whatever_the_load_or_are_refused() {
    // The node budget at its default decides; the clock, a safety net
    // that refuses, is set far out so a loaded test machine cannot fire it.
    let server = Server::start(json!({"time_budget_ms": 600_000}));
    let addr = server.addr;
    let game = random_game("masters", 1);
    let turns = game["moves"].as_array().unwrap().len();
    eprintln!("the review has {turns} turns");
    let review = json!({"cmd": "review", "game": game});
    let expected = unlimited(&review);
    assert!(expected["turns"].is_array(), "{expected}");
    // The same review three times at once, beside heavy work: each answer
    // is the unlimited one.
    let load: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(move || call(addr, "POST", "/v1/request", &heavy_batch(1))))
        .collect();
    let reviews: Vec<_> = (0..3)
        .map(|_| {
            let body = review.to_string();
            std::thread::spawn(move || call(addr, "POST", "/v1/request", &body))
        })
        .collect();
    for reviewed in reviews {
        let (status, text) = reviewed.join().unwrap();
        assert_eq!(status, 200, "{}", &text[..text.len().min(300)]);
        let got: Value = serde_json::from_str(&text).unwrap();
        assert!(got == expected, "a review of {turns} turns differs");
    }
    for heavy in load {
        heavy.join().unwrap();
    }
    // Sixty-four identical hints in one batch: one ranking, the unlimited one.
    let hint = json!({"cmd": "hint", "position": MASTERS_MIDGAME, "roll": 2});
    let expected = unlimited(&hint);
    let (status, text) = server.call(
        "POST",
        "/v1/request",
        &Value::Array(vec![hint; 64]).to_string(),
    );
    assert_eq!(status, 200);
    let answers: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(answers.iter().all(|answer| *answer == expected));

    // A budget too small for the review: refused, naming the budget and
    // the record's size, never answered with shallower values.
    let small = Server::start(json!({"max_nodes": 100_000}));
    let (status, text) = small.call("POST", "/v1/request", &review.to_string());
    assert_eq!(status, 422, "{text}");
    let refused: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(refused["error"]["kind"], "too_expensive");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("100000 nodes") && message.contains(&format!("{turns} turns")),
        "{message}"
    );
}

#[test]
fn a_record_is_replayed_before_any_search() {
    let server = Server::defaults();
    // A long game whose last move is illegal, reviewed by a reference deep
    // enough to pass the node budget long before the last move: refused
    // for the move, so it was replayed before any search.
    let mut game = random_game("masters", 2);
    let moves = game["moves"].as_array_mut().unwrap();
    moves.push(json!("4:0-9"));
    let bot = "neural:model=masters-hard.safetensors:depth=3:pruning=false";
    let (status, text) = server.call(
        "POST",
        "/v1/review",
        &json!({"game": game, "bot": bot}).to_string(),
    );
    assert_eq!(status, 422, "{text}");
    let refused: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(refused["error"]["kind"], "invalid_field", "{text}");
    // The same game without the bad move is too expensive for that
    // reference: the refusal above came before any search.
    game["moves"].as_array_mut().unwrap().pop();
    let (status, text) = server.call(
        "POST",
        "/v1/review",
        &json!({"game": game, "bot": bot}).to_string(),
    );
    assert_eq!(status, 422, "{}", &text[..text.len().min(300)]);
    assert!(
        text.contains("too_expensive"),
        "{}",
        &text[..text.len().min(300)]
    );
}

/// A client that writes its whole request before it reads (Python's
/// urllib, most HTTP libraries) gets the 413 and its JSON, not a broken
/// pipe: the server reads and drops the rest of a refused body (up to
/// 4 MiB, for up to 2 s) while its answer goes out, as nginx does.
#[test]
fn a_client_that_writes_a_too_large_body_first_then_reads_gets_the_413() {
    let server = Server::start(json!({}));
    for declared in [true, false] {
        let body = vec![b' '; 2 << 20];
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream
            .set_write_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let head = if declared {
            format!(
                "POST /v1/request HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            )
        } else {
            "POST /v1/request HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n".to_string()
        };
        stream.write_all(head.as_bytes()).unwrap();
        if declared {
            stream
                .write_all(&body)
                .unwrap_or_else(|e| panic!("writing the body (declared): {e}"));
        } else {
            for chunk in body.chunks(64 << 10) {
                stream
                    .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                    .and_then(|()| stream.write_all(chunk))
                    .and_then(|()| stream.write_all(b"\r\n"))
                    .unwrap_or_else(|e| panic!("writing the body (chunked): {e}"));
            }
            stream.write_all(b"0\r\n\r\n").unwrap();
        }
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        assert!(answer.contains("\"too_large\""), "{answer}");
    }
}

/// Every early answer reaches a client that writes 2 MiB before it reads:
/// 404 (no such path), 405 (a POST to a GET route), and a GET route that
/// takes no body: each drains the body it did not read.
#[test]
fn every_refusal_reaches_a_client_that_writes_first() {
    let server = Server::start(json!({}));
    for (method, path, status) in [
        ("POST", "/no/such/path", 404),
        ("POST", "/healthz", 405),
        ("POST", "/v1/rules", 405),
        ("GET", "/healthz", 200),
    ] {
        for _ in 0..3 {
            let body = vec![b' '; 2 << 20];
            let mut stream = TcpStream::connect(server.addr).unwrap();
            stream
                .set_write_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let head = format!(
                "{method} {path} HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).unwrap();
            stream
                .write_all(&body)
                .unwrap_or_else(|e| panic!("{method} {path}: writing the body: {e}"));
            // Read the head and its body (the connection may stay open).
            let mut answer = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                let n = stream.read(&mut buffer).unwrap_or(0);
                answer.extend_from_slice(&buffer[..n]);
                let text = String::from_utf8_lossy(&answer);
                let complete = text.split_once("\r\n\r\n").is_some_and(|(head, body)| {
                    head.lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length: ")
                                .map(str::to_string)
                        })
                        .and_then(|n| n.trim().parse::<usize>().ok())
                        .is_some_and(|n| body.len() >= n)
                });
                if n == 0 || complete {
                    break;
                }
            }
            let answer = String::from_utf8_lossy(&answer);
            assert!(
                answer.starts_with(&format!("HTTP/1.1 {status}")),
                "{method} {path}: {answer}"
            );
        }
    }
}

#[test]
fn refusals_at_the_http_level_are_json_and_come_at_once() {
    let server = Server::start(json!({"body_timeout_ms": 1000}));
    // A declared body over the limit: 413 without waiting for it.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .write_all(b"POST /v1/request HTTP/1.1\r\nhost: test\r\ncontent-length: 10000000\r\n\r\n")
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let started = Instant::now();
    let mut head = [0u8; 1024];
    let n = stream.read(&mut head).unwrap();
    let answer = String::from_utf8_lossy(&head[..n]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"too_large\""), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(1));
    // A body that never finishes: 408 after the body timeout.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .write_all(
            b"POST /v1/request HTTP/1.1\r\nhost: test\r\ncontent-length: 100\r\n\r\n{\"cmd\"",
        )
        .unwrap();
    let (status, body) = read_answer(&mut stream);
    assert_eq!(status, 408, "{body}");
    assert!(body.contains("\"timeout\""), "{body}");
    // A path segment that is not UTF-8: a JSON 400.
    let (status, body) = server.call("GET", "/v1/start/%FF%FE", "");
    assert_eq!(status, 400, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["kind"], "invalid_request");
    // A request id longer than 128 characters is replaced, not echoed.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    let long = "x".repeat(300);
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nhost: test\r\nx-request-id: {long}\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(!answer.contains(&long));
    assert!(answer.to_lowercase().contains("x-request-id: "), "{answer}");
    // A 300 KB one never reaches the router: headers over 16 KiB get 431
    // from the HTTP library, and nothing is echoed.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    let huge = "x".repeat(300 << 10);
    let sent = write!(
        stream,
        "GET /healthz HTTP/1.1\r\nhost: test\r\nx-request-id: {huge}\r\n\r\n"
    );
    let (status, body) = read_answer(&mut stream);
    // The refusal may be lost to the reset of a socket closed with the
    // rest of the header unread; it is never a 200.
    let _ = sent;
    assert!(
        status == 431 || status == 0,
        "{status} {}",
        &body[..body.len().min(200)]
    );
    assert!(!body.contains("xxxx"));
}
