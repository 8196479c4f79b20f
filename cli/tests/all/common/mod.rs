//! Running the `sawah` binary from the command-line tests.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

/// Runs `sawah ARGS` and returns its exit code, standard output and standard error.
pub fn sawah(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs `sawah ARGS`, which must fail with a clear error that contains
/// `needle`, not a panic.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn assert_refused(args: &[&str], needle: &str) {
    let (code, _, stderr) = sawah(args);
    assert_ne!(code, 0, "{args:?}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: {stderr:?} lacks {needle:?}"
    );
}

/// Runs `sawah ARGS` with `input` on its standard input (a person's
/// answers, for `sawah play`), to its end.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn scripted(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A game that ends before its input does closes the pipe: not an error.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

/// A new, empty temporary folder for one test (named after it and this process).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sawah-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running `sawah serve` on a free loopback port, killed when dropped.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub struct Served {
    /// The server process.
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

#[allow(dead_code)]
impl Served {
    /// `sawah serve` on 127.0.0.1 with two workers and `extra` options.
    pub fn start(extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
            .args(["serve", "--addr", "127.0.0.1:0", "--workers", "2"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("{line:?}"))
            .to_string();
        Served { child, addr }
    }
}

#[allow(dead_code)]
impl Served {
    /// One HTTP/1.1 request on its own connection: status and body.
    pub fn call(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&self.addr).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, body.to_string())
    }

    /// SIGTERM, then the exit code.
    pub fn terminate(mut self) -> Option<i32> {
        let pid = self.child.id().to_string();
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        self.child.wait().unwrap().code()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[allow(dead_code)] // not every test binary that includes this module uses it
/// The games of a results file, keyed by (pair, which seat the first agent
/// had), with who won and every move: what must agree across front doors.
pub fn games(
    dir: &std::path::Path,
    first: &str,
) -> Vec<(u64, bool, serde_json::Value, Vec<String>, serde_json::Value)> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut games: Vec<_> = text
        .lines()
        .skip(1)
        .map(|line| {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            let first_light = game["light"] == first;
            let moves = game["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            (
                game["pair"].as_u64().unwrap(),
                first_light,
                game["winner"].clone(),
                moves,
                game.get("failure")
                    .cloned()
                    .unwrap_or(serde_json::Value::Null),
            )
        })
        .collect();
    games.sort_by_key(|g| (g.0, g.1));
    games
}
