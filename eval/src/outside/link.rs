//! The wire to an outside bot: one request line out, one answer line back,
//! within a time limit, with every read bounded.
//!
//! A [`PipeLink`] is a process the harness started, in a process group of
//! its own: its stdin is fed by a writer thread (a bot that stops reading
//! cannot block the harness), its stdout read by a reader thread in lines
//! of at most [`MAX_LINE`] bytes, its stderr drained into the bot's log
//! (capped) and a short tail kept for error messages. Dropping the link
//! kills the whole group, so children a bot forks go with it. Every live
//! group is also listed for [`kill_all`], which the harness's SIGINT and
//! SIGTERM handler calls before it exits ([`install_exit_handler`]).
//!
//! An [`HttpLink`] POSTs each request to `URL/v1/request` with the time
//! limit as the whole request's timeout, and reads at most [`MAX_LINE`]
//! bytes of the answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::defs::Transport;

/// The longest answer line read from a bot (1 MiB); a longer one is a forfeit.
pub const MAX_LINE: usize = 1 << 20;
/// The most of a bot's stderr kept in its log file (16 MiB, then a note).
pub const MAX_LOG_BYTES: u64 = 16 << 20;
/// The bytes of a bot's last stderr output quoted when it fails.
const TAIL_BYTES: usize = 600;

/// A failed exchange: why, and whether the link can still be used (an
/// answer the bot made is fine on the wire even if it is not a legal move;
/// a timeout, a crash or an endless line leave the stream unusable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError {
    /// What went wrong, in words for the results file.
    pub reason: String,
    /// The link is broken and must be dropped.
    pub broken: bool,
}

impl LinkError {
    fn broken(reason: String) -> LinkError {
        LinkError {
            reason,
            broken: true,
        }
    }
}

/// One bot connection: send a request, wait for its answer line.
pub trait Link: Send {
    /// Sends `request` (one JSON line, no newline) and returns the answer
    /// line, or why there is none within `limit`.
    fn ask(&mut self, request: &str, limit: Duration) -> Result<Vec<u8>, LinkError>;
}

/// Opens a link of `transport`'s kind; `log` receives a process's stderr.
pub fn open(transport: &Transport, log: Option<Arc<BotLog>>) -> Result<Box<dyn Link>, String> {
    match transport {
        Transport::Command { argv, dir, env } => {
            Ok(Box::new(PipeLink::spawn(argv, dir, env, log)?))
        }
        Transport::Url(url) => Ok(Box::new(HttpLink::new(url))),
    }
}

// ---------------------------------------------------------------- groups

/// Process groups alive now (0: a free slot), for the exit handler, which
/// may only do async-signal-safe things: read atomics and call kill().
static GROUPS: [AtomicI32; 1024] = [const { AtomicI32::new(0) }; 1024];

fn register_group(pgid: i32) {
    for slot in &GROUPS {
        if slot
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
    // More than 1,024 live bots: the group is still killed when its link
    // drops, only not by the signal handler.
}

fn unregister_group(pgid: i32) {
    for slot in &GROUPS {
        if slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Kills every live bot's process group (SIGKILL). Async-signal-safe.
pub fn kill_all() {
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill() is async-signal-safe and takes plain integers.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

extern "C" fn on_exit_signal(signal: libc::c_int) {
    kill_all();
    // SAFETY: _exit is async-signal-safe; 128 + signal is the shell's convention.
    unsafe { libc::_exit(128 + signal) }
}

/// Installs the SIGINT and SIGTERM handler that kills every bot's process
/// group and exits (128 + the signal), and ignores SIGPIPE. Done once, when
/// the first bot process starts; results lines already written stay (each
/// is flushed whole, and a cut last line is repaired on resume).
pub fn install_exit_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // A bot that dies while the harness writes to it must not take the
        // harness with it: a write to its closed stdin is an error to
        // handle (the bot's forfeit), not SIGPIPE.
        // SAFETY: setting a signal's disposition to ignore.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: a plain C handler that only calls async-signal-safe functions.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_exit_signal as *const () as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

// ---------------------------------------------------------------- logs

/// A bot's stderr log, shared by its processes: `OUT/logs/NAME.log`,
/// capped at [`MAX_LOG_BYTES`].
#[derive(Debug)]
pub struct BotLog {
    file: Mutex<(std::fs::File, u64)>,
}

impl BotLog {
    /// Opens (appends to) the log at `path`, creating its folder.
    pub fn open(path: &Path) -> std::io::Result<BotLog> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        let written = file.metadata()?.len();
        Ok(BotLog {
            file: Mutex::new((file, written)),
        })
    }

    fn write(&self, bytes: &[u8]) {
        let Ok(mut guard) = self.file.lock() else {
            return;
        };
        let (file, written) = &mut *guard;
        if *written >= MAX_LOG_BYTES {
            return;
        }
        let room = (MAX_LOG_BYTES - *written) as usize;
        let _ = if bytes.len() <= room {
            file.write_all(bytes)
        } else {
            file.write_all(&bytes[..room])
                .and_then(|()| file.write_all(b"\n[log cut: it reached its limit of 16 MiB]\n"))
        };
        *written += bytes.len().min(room) as u64;
        if *written >= MAX_LOG_BYTES {
            *written = MAX_LOG_BYTES;
        }
    }
}

// ---------------------------------------------------------------- pipes

enum Line {
    Text(Vec<u8>),
    TooLong,
    Failed(String),
}

/// A bot process speaking JSON lines on its stdin and stdout.
pub struct PipeLink {
    child: Child,
    pgid: i32,
    requests: Option<Sender<Vec<u8>>>,
    answers: Receiver<Line>,
    tail: Arc<Mutex<Vec<u8>>>,
}

impl PipeLink {
    /// Starts `argv` in `dir` with `env` added, in a process group of its own.
    pub fn spawn(
        argv: &[String],
        dir: &Path,
        env: &std::collections::BTreeMap<String, String>,
        log: Option<Arc<BotLog>>,
    ) -> Result<PipeLink, String> {
        use std::os::unix::process::CommandExt;
        install_exit_handler();
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| "the command is empty".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(dir)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("could not start {program:?} in {}: {e}", dir.display()))?;
        let pgid = child.id() as i32;
        register_group(pgid);
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            kill_group(pgid, &mut child);
            return Err("its pipes could not be opened".into());
        };
        let (requests, to_write) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || write_requests(stdin, to_write));
        let (answer_tx, answers) = mpsc::channel();
        std::thread::spawn(move || read_answers(stdout, answer_tx));
        let tail = Arc::new(Mutex::new(Vec::new()));
        let tail_writer = Arc::clone(&tail);
        std::thread::spawn(move || drain_stderr(stderr, log, tail_writer));
        Ok(PipeLink {
            child,
            pgid,
            requests: Some(requests),
            answers,
            tail,
        })
    }

    /// The last words the process wrote to stderr, for an error message.
    fn last_words(&self) -> String {
        // Give the stderr thread a moment to catch up with a dying process.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim();
        if text.is_empty() {
            String::new()
        } else {
            let flat: String = text
                .lines()
                .rev()
                .take(3)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join(" | ");
            format!("; its last stderr: {flat}")
        }
    }

    fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(format!("exited ({status}){}", self.last_words())),
            _ => None,
        }
    }
}

impl Link for PipeLink {
    fn ask(&mut self, request: &str, limit: Duration) -> Result<Vec<u8>, LinkError> {
        let start = Instant::now();
        let mut line = Vec::with_capacity(request.len() + 1);
        line.extend_from_slice(request.as_bytes());
        line.push(b'\n');
        let sent = self.requests.as_ref().is_some_and(|r| r.send(line).is_ok());
        if !sent {
            let reason = self
                .exited()
                .unwrap_or_else(|| "stopped reading its input".into());
            return Err(LinkError::broken(reason));
        }
        loop {
            let left = limit.saturating_sub(start.elapsed());
            match self
                .answers
                .recv_timeout(left.min(Duration::from_millis(50)))
            {
                Ok(Line::Text(answer)) => return Ok(answer),
                Ok(Line::TooLong) => {
                    return Err(LinkError::broken(format!(
                        "wrote a line over {} MiB",
                        MAX_LINE >> 20
                    )));
                }
                Ok(Line::Failed(e)) => {
                    let reason = self
                        .exited()
                        .unwrap_or_else(|| format!("its output failed: {e}"));
                    return Err(LinkError::broken(reason));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Output closed: it exited, or is about to.
                    let deadline = Instant::now() + Duration::from_millis(500);
                    while Instant::now() < deadline {
                        if let Some(reason) = self.exited() {
                            return Err(LinkError::broken(reason));
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    return Err(LinkError::broken(format!(
                        "closed its output{}",
                        self.last_words()
                    )));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(reason) = self.exited() {
                        return Err(LinkError::broken(reason));
                    }
                    if start.elapsed() >= limit {
                        return Err(LinkError::broken(format!(
                            "no answer in {:.1} s",
                            limit.as_secs_f64()
                        )));
                    }
                }
            }
        }
    }
}

impl Drop for PipeLink {
    fn drop(&mut self) {
        // Closing stdin first lets a well-behaved bot see the end of its
        // input; the group is killed either way.
        self.requests = None;
        kill_group(self.pgid, &mut self.child);
    }
}

fn kill_group(pgid: i32, child: &mut Child) {
    // SAFETY: kill() with a negative pid signals the process group.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    let _ = child.wait();
    unregister_group(pgid);
}

fn write_requests(mut stdin: std::process::ChildStdin, lines: Receiver<Vec<u8>>) {
    for line in lines {
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// Reads lines of at most [`MAX_LINE`] bytes (without the newline) and
/// hands them over; stops at end of output, an error or a longer line.
fn read_answers(stdout: std::process::ChildStdout, answers: Sender<Line>) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    loop {
        match read_bounded_line(&mut reader, MAX_LINE) {
            Ok(Some(line)) => {
                if answers.send(Line::Text(line)).is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(BoundedLineError::TooLong) => {
                let _ = answers.send(Line::TooLong);
                return;
            }
            Err(BoundedLineError::Io(e)) => {
                let _ = answers.send(Line::Failed(e.to_string()));
                return;
            }
        }
    }
}

/// Why [`read_bounded_line`] found no line.
#[derive(Debug)]
pub enum BoundedLineError {
    /// The line is longer than the limit (nothing more was read of it
    /// than the limit and one buffer).
    TooLong,
    /// Reading failed.
    Io(std::io::Error),
}

/// Reads one line (without its `\n`, and a `\r` before it) of at most
/// `limit` bytes; `None` at end of input. Never holds more than `limit`
/// bytes plus the reader's buffer.
pub fn read_bounded_line(
    reader: &mut impl BufRead,
    limit: usize,
) -> Result<Option<Vec<u8>>, BoundedLineError> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().map_err(BoundedLineError::Io)?;
        if buffer.is_empty() {
            return Ok(if line.is_empty() { None } else { Some(line) });
        }
        let (chunk, found) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], true),
            None => (buffer, false),
        };
        if line.len() + chunk.len() > limit {
            return Err(BoundedLineError::TooLong);
        }
        line.extend_from_slice(chunk);
        let used = chunk.len() + usize::from(found);
        reader.consume(used);
        if found {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(line));
        }
    }
}

fn drain_stderr(
    mut stderr: std::process::ChildStderr,
    log: Option<Arc<BotLog>>,
    tail: Arc<Mutex<Vec<u8>>>,
) {
    let mut buffer = [0u8; 8192];
    loop {
        match stderr.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Some(log) = &log {
                    log.write(&buffer[..n]);
                }
                if let Ok(mut tail) = tail.lock() {
                    tail.extend_from_slice(&buffer[..n]);
                    if tail.len() > TAIL_BYTES {
                        let cut = tail.len() - TAIL_BYTES;
                        tail.drain(..cut);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------- HTTP

/// A bot behind this project's HTTP API.
pub struct HttpLink {
    url: String,
    agent: ureq::Agent,
}

impl HttpLink {
    /// A link to the server at `url` (`http://host:port`, no trailing slash).
    pub fn new(url: &str) -> HttpLink {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_response_header_size(64 << 10)
            .build()
            .into();
        HttpLink {
            url: format!("{url}/v1/request"),
            agent,
        }
    }
}

impl Link for HttpLink {
    fn ask(&mut self, request: &str, limit: Duration) -> Result<Vec<u8>, LinkError> {
        let failed = |reason: String| LinkError {
            reason,
            broken: false,
        };
        let timeout = |e: &ureq::Error| matches!(e, ureq::Error::Timeout(_));
        let mut response = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(limit))
            .build()
            .header("content-type", "application/json")
            .send(request)
            .map_err(|e| {
                if timeout(&e) {
                    failed(format!("no answer in {:.1} s", limit.as_secs_f64()))
                } else {
                    failed(format!("request to {} failed: {e}", self.url))
                }
            })?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_LINE as u64)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => {
                    failed(format!("answered with a body over {} MiB", MAX_LINE >> 20))
                }
                e if timeout(&e) => failed(format!("no answer in {:.1} s", limit.as_secs_f64())),
                e => failed(format!("reading the answer from {} failed: {e}", self.url)),
            })?;
        if body.is_empty() {
            return Err(failed(format!("answered HTTP {status} with no body")));
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(input: &[u8], limit: usize) -> Vec<Result<Vec<u8>, String>> {
        let mut reader = BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        loop {
            match read_bounded_line(&mut reader, limit) {
                Ok(Some(line)) => out.push(Ok(line)),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err(format!("{e:?}")));
                    return out;
                }
            }
        }
    }

    #[test]
    fn lines_are_read_whole_and_long_ones_refused() {
        assert_eq!(
            lines(b"ab\r\ncdefghijk\n\nlast", 20),
            vec![
                Ok(b"ab".to_vec()),
                Ok(b"cdefghijk".to_vec()),
                Ok(Vec::new()),
                Ok(b"last".to_vec())
            ]
        );
        let cut = lines(b"0123456789abc\nok\n", 10);
        assert_eq!(cut.len(), 1);
        assert!(cut[0].as_ref().unwrap_err().contains("TooLong"));
    }

    proptest! {
        /// Against the plain split: every line up to the limit comes back
        /// as it was, and the first longer one stops the reading.
        #[test]
        fn bounded_lines_match_a_plain_split(text in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), Just(b'b')], 0..200), limit in 1usize..20) {
            let got = lines(&text, limit);
            let mut expected = Vec::new();
            let mut parts: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
            if text.last() == Some(&b'\n') || text.is_empty() {
                parts.pop();
            }
            for part in parts {
                if part.len() > limit {
                    expected.push(Err(format!("{:?}", BoundedLineError::TooLong)));
                    break;
                }
                expected.push(Ok(part.to_vec()));
            }
            prop_assert_eq!(got, expected);
        }
    }
}
