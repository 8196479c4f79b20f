//! The wire to an outside bot: one request line out, one answer line back,
//! within a time limit, with every read bounded.
//!
//! A [`PipeLink`] is a process the harness started, in a process group of
//! its own: its stdin and stdout are non-blocking pipes waited on with
//! `poll` until the move's deadline (a bot that stops reading cannot block
//! the harness), answers are lines of at most [`MAX_LINE`] bytes, and its
//! stderr is drained by a thread into the bot's log (capped), with a short
//! tail kept for error messages. Dropping the link
//! kills the whole group, so children a bot forks go with it. Every live
//! group is also listed for [`kill_all`], which the harness's SIGINT and
//! SIGTERM handler calls before it exits ([`install_exit_handler`]).
//!
//! An [`HttpLink`](super::http::HttpLink) (in `http`) POSTs each request
//! to a bot's server.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sawah_agents::FailureKind;

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
    /// What kind of failure it is (a timeout, a crash, a malformed answer).
    pub kind: FailureKind,
    /// What went wrong, in words for the results file.
    pub reason: String,
    /// The link is broken and must be dropped.
    pub broken: bool,
}

impl LinkError {
    fn broken(kind: FailureKind, reason: String) -> LinkError {
        LinkError {
            kind,
            reason,
            broken: true,
        }
    }

    fn crash(reason: String) -> LinkError {
        LinkError::broken(FailureKind::Crash, reason)
    }
}

/// One bot connection: send a request, wait for its answer line.
pub trait Link: Send {
    /// Sends `request` (one JSON line, no newline) and returns the answer
    /// line, or why there is none within `limit`.
    fn ask(&mut self, request: &str, id: u64, limit: Duration) -> Result<Vec<u8>, LinkError>;
}

// ---------------------------------------------------------------- groups

/// The most bot processes alive at once: every one is listed for the exit
/// handler, which cannot allocate, so the list has a fixed size, and a
/// bot process past it is refused (a start failure) rather than left off
/// the list. `SAWAH_MAX_BOT_PROCESSES` may set a lower limit.
pub const MAX_BOT_PROCESSES: usize = 16_384;

/// Process groups alive now (0: a free slot), for the exit handler, which
/// may only do async-signal-safe things: read atomics and call kill().
static GROUPS: [AtomicI32; MAX_BOT_PROCESSES] = [const { AtomicI32::new(0) }; MAX_BOT_PROCESSES];

/// The limit in force: [`MAX_BOT_PROCESSES`], or the lower one
/// `SAWAH_MAX_BOT_PROCESSES` gives.
fn group_limit() -> usize {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("SAWAH_MAX_BOT_PROCESSES")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .map_or(MAX_BOT_PROCESSES, |n| n.clamp(1, MAX_BOT_PROCESSES))
    })
}

/// Lists a bot's process group for the exit handler; false when the list
/// is full (the caller then kills the group and refuses to start it).
fn register_group(pgid: i32) -> bool {
    GROUPS[..group_limit()].iter().any(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
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
    /// Opens (appends to) the log at `path`, creating its folder. A link
    /// planted at `path` is refused (`O_NOFOLLOW`), and so is anything but
    /// a regular file: the log is written where the operator said.
    pub fn open(path: &Path) -> std::io::Result<BotLog> {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| {
                if e.raw_os_error() == Some(libc::ELOOP) {
                    std::io::Error::other(
                        "it is a symbolic link; remove it (logs are not written through links)",
                    )
                } else {
                    e
                }
            })?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other("it is not a regular file"));
        }
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

/// A bot process speaking JSON lines on its stdin and stdout. Both pipes
/// are non-blocking and waited on with `poll`, in the asking thread: no
/// thread hop on the way to the bot or back (a move's round trip is two
/// process wake-ups).
pub struct PipeLink {
    child: Child,
    pgid: i32,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::process::ChildStdout,
    /// Bytes read past the last answer line (at most [`MAX_LINE`] plus one read).
    pending: Vec<u8>,
    tail: Arc<Mutex<Vec<u8>>>,
}

/// The longest one `poll` waits before the link looks at the process again
/// (a bot that exited while a child of its holds its stdout open).
const POLL_SLICE: Duration = Duration::from_millis(50);

/// How long the asking thread keeps trying to read (yielding between tries)
/// before it sleeps in `poll`. Waking a sleeping thread from another core
/// costs tens of microseconds on some machines (a 1-byte pipe round trip
/// between two processes: 63 µs median sleeping, 19 µs trying, measured in
/// docs/benchmarks-log.md); a fast bot's answer arrives within this, and a slow
/// bot's move costs at most this much extra CPU.
const SPIN: Duration = Duration::from_micros(150);

fn set_nonblocking(fd: std::os::fd::RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Waits until `fd` is ready for `events` or `wait` passes; true when ready
/// (or hung up: the next read or write says what happened).
fn ready(fd: std::os::fd::RawFd, events: libc::c_short, wait: Duration) -> bool {
    let mut pollfd = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    let millis = wait.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd, its count, a timeout.
    let found = unsafe { libc::poll(&mut pollfd, 1, millis) };
    found > 0
}

impl PipeLink {
    /// Starts `argv` in `dir` with `env` added, in a process group of its own.
    pub fn spawn(
        argv: &[String],
        dir: &Path,
        env: &std::collections::BTreeMap<String, String>,
        log: Option<Arc<BotLog>>,
    ) -> Result<PipeLink, String> {
        use std::os::fd::AsRawFd;
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
        if !register_group(pgid) {
            // SAFETY: kill() with a negative pid signals the process group.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
            let _ = child.wait();
            return Err(format!(
                "more than {} bot processes would be alive at once; the harness starts no process it could not stop on exit (SAWAH_MAX_BOT_PROCESSES, at most {MAX_BOT_PROCESSES})",
                group_limit()
            ));
        }
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            kill_group(pgid, &mut child);
            return Err("its pipes could not be opened".into());
        };
        if let Err(e) =
            set_nonblocking(stdin.as_raw_fd()).and_then(|()| set_nonblocking(stdout.as_raw_fd()))
        {
            kill_group(pgid, &mut child);
            return Err(format!("its pipes could not be set up: {e}"));
        }
        let tail = Arc::new(Mutex::new(Vec::new()));
        let tail_writer = Arc::clone(&tail);
        std::thread::spawn(move || drain_stderr(stderr, log, tail_writer));
        Ok(PipeLink {
            child,
            pgid,
            stdin: Some(stdin),
            stdout,
            pending: Vec::new(),
            tail,
        })
    }

    /// The last words the process wrote to stderr, for an error message.
    fn last_words(&self) -> String {
        // Give the stderr thread a moment to catch up with a dying process.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        let text = String::from_utf8_lossy(&tail);
        let lines: Vec<&str> = text.trim().lines().collect();
        if lines.is_empty() {
            String::new()
        } else {
            let last = &lines[lines.len().saturating_sub(3)..];
            let last = sawah_engine::text::printable(&last.join(" | "), 300);
            format!("; its last stderr: {last}")
        }
    }

    fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(format!("exited ({status}){}", self.last_words())),
            _ => None,
        }
    }

    /// Why the bot stopped taking input or giving output: it exited (said
    /// within half a second of its pipe closing), or `otherwise`.
    fn gone(&mut self, otherwise: &str) -> LinkError {
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            if let Some(reason) = self.exited() {
                return LinkError::crash(reason);
            }
            if Instant::now() >= deadline {
                return LinkError::crash(format!("{otherwise}{}", self.last_words()));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn send(
        &mut self,
        mut bytes: &[u8],
        deadline: Instant,
        limit: Duration,
    ) -> Result<(), LinkError> {
        use std::os::fd::AsRawFd;
        while !bytes.is_empty() {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(self.gone("closed its input"));
            };
            match stdin.write(bytes) {
                Ok(0) => return Err(self.gone("stopped reading its input")),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let fd = stdin.as_raw_fd();
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(LinkError::broken(
                            FailureKind::Time,
                            format!(
                                "no answer in {:.1} s (it stopped reading its input)",
                                limit.as_secs_f64()
                            ),
                        ));
                    }
                    ready(fd, libc::POLLOUT, left.min(POLL_SLICE));
                    if let Some(reason) = self.exited() {
                        return Err(LinkError::crash(reason));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.gone(&format!("its input failed: {e}"))),
            }
        }
        Ok(())
    }
}

/// Whether `line` is an answer to a request before `id`: an answer that
/// came late, after its request had already failed (a log line on stdout
/// before it, a timeout). Skipped, so that one bad line costs one error
/// rather than every answer after it arriving one request behind.
fn is_stale(line: &[u8], id: u64) -> bool {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<u64>,
    }
    matches!(serde_json::from_slice::<IdOnly>(line), Ok(IdOnly { id: Some(earlier) }) if earlier < id)
}

impl Link for PipeLink {
    fn ask(&mut self, request: &str, id: u64, limit: Duration) -> Result<Vec<u8>, LinkError> {
        use std::os::fd::AsRawFd;
        let deadline = Instant::now() + limit;
        let mut line = Vec::with_capacity(request.len() + 1);
        line.extend_from_slice(request.as_bytes());
        line.push(b'\n');
        self.send(&line, deadline, limit)?;
        let fd = self.stdout.as_raw_fd();
        let mut buffer = [0u8; 64 << 10];
        let spin_until = Instant::now() + SPIN;
        loop {
            match take_line(&mut self.pending, MAX_LINE) {
                Ok(Some(answer)) if is_stale(&answer, id) => continue,
                Ok(Some(answer)) => return Ok(answer),
                Ok(None) => {}
                Err(TooLong) => {
                    return Err(LinkError::broken(
                        FailureKind::Malformed,
                        format!("wrote a line over {} MiB", MAX_LINE >> 20),
                    ));
                }
            }
            match self.stdout.read(&mut buffer) {
                Ok(0) => return Err(self.gone("closed its output")),
                Ok(n) => {
                    self.pending.extend_from_slice(&buffer[..n]);
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() < spin_until {
                        std::thread::yield_now();
                        continue;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.gone(&format!("its output failed: {e}"))),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(LinkError::broken(
                    FailureKind::Time,
                    format!("no answer in {:.1} s", limit.as_secs_f64()),
                ));
            }
            if !ready(fd, libc::POLLIN, left.min(POLL_SLICE))
                && let Some(reason) = self.exited()
            {
                return Err(LinkError::crash(reason));
            }
        }
    }
}

impl Drop for PipeLink {
    fn drop(&mut self) {
        // Closing stdin first lets a well-behaved bot see the end of its
        // input; the group is killed either way.
        self.stdin = None;
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

/// A line longer than the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLong;

/// Takes the first whole line (without its `\n`, and a `\r` before it)
/// out of `pending`; `None` while there is none yet; [`TooLong`] once the
/// line has more than `limit` bytes, whether or not its end has arrived.
pub fn take_line(pending: &mut Vec<u8>, limit: usize) -> Result<Option<Vec<u8>>, TooLong> {
    match pending.iter().position(|&b| b == b'\n') {
        Some(end) if end > limit => Err(TooLong),
        Some(end) => {
            let mut line: Vec<u8> = pending.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            Ok(Some(line))
        }
        None if pending.len() > limit => Err(TooLong),
        None => Ok(None),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Feeds `input` in chunks of `chunk` bytes and takes lines as they come.
    fn lines(input: &[u8], chunk: usize, limit: usize) -> Vec<Result<Vec<u8>, TooLong>> {
        let mut pending = Vec::new();
        let mut out = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            pending.extend_from_slice(piece);
            loop {
                match take_line(&mut pending, limit) {
                    Ok(Some(line)) => out.push(Ok(line)),
                    Ok(None) => break,
                    Err(e) => {
                        out.push(Err(e));
                        return out;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn lines_are_taken_whole_and_long_ones_refused() {
        assert_eq!(
            lines(b"ab\r\ncdefghijk\n\nlast", 3, 20),
            vec![
                Ok(b"ab".to_vec()),
                Ok(b"cdefghijk".to_vec()),
                Ok(Vec::new()),
            ]
        );
        assert_eq!(lines(b"0123456789abc\nok\n", 4, 10), vec![Err(TooLong)]);
        // Refused before its end arrives: an endless line is not held whole.
        assert_eq!(lines(&[b'x'; 100], 7, 10), vec![Err(TooLong)]);
    }

    proptest! {
        /// Against the plain split, whatever the chunks: every line up to
        /// the limit comes back as it was, and the first longer one stops.
        #[test]
        fn taken_lines_match_a_plain_split(
            text in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), Just(b'b')], 0..200),
            chunk in 1usize..40,
            limit in 1usize..20,
        ) {
            let got = lines(&text, chunk, limit);
            let mut expected = Vec::new();
            let mut parts: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
            let unfinished = parts.pop().unwrap_or_default();
            for part in parts {
                if part.len() > limit {
                    expected.push(Err(TooLong));
                    break;
                }
                expected.push(Ok(part.to_vec()));
            }
            if !expected.iter().any(Result::is_err) && unfinished.len() > limit {
                expected.push(Err(TooLong));
            }
            prop_assert_eq!(got, expected);
        }
    }
}
