//! `sawah bot`: the bot protocol (`sawah-protocol`) over JSON lines on
//! stdin and stdout. One request per line in, one response per line out, in
//! order, flushed after each; every line gets exactly one response, a
//! malformed one an error response, and only end of input stops the server.

use sawah_engine::files::{BoundedLine, read_line_bounded};
use sawah_protocol::native::Limits;
use sawah_protocol::{ErrorKind, ProtocolError};
use std::io::{self, BufRead, Write};
use std::time::Duration;

pub use sawah_protocol::Bot;

/// The longest request line read (longer lines are skipped and answered
/// with a `too_large` error, so memory stays bounded).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most one request may cost (defaults: none for a trusted bot, the
/// untrusted bound otherwise).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LimitArgs {
    /// Deepest search a request may ask for (a spec's depth; default 3
    /// when untrusted).
    #[arg(long, value_name = "PLIES")]
    pub max_depth: Option<u8>,
    /// Nodes one request may search, counted over all its searches: past
    /// it, `choose` and `evaluate` answer from the deepest depth finished
    /// and say so in `"cut"`, `review` and `hint` refuse with
    /// `too_expensive` (default 5000000 when untrusted).
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<u64>,
    /// Milliseconds from a request's arrival after which its searches stop
    /// the same way: the clock's safety net behind the node budget
    /// (default 10000 when untrusted).
    #[arg(long, value_name = "MS")]
    pub time_budget_ms: Option<u64>,
}

impl LimitArgs {
    /// The limits: the defaults of a trusted or untrusted bot, overridden
    /// by the options given.
    pub fn limits(&self, untrusted: bool) -> Limits {
        let defaults = if untrusted {
            Limits::UNTRUSTED
        } else {
            Limits::NONE
        };
        Limits {
            max_depth: self.max_depth.unwrap_or(defaults.max_depth),
            max_nodes: self.max_nodes.or(defaults.max_nodes),
            time_budget: self
                .time_budget_ms
                .map(Duration::from_millis)
                .or(defaults.time_budget),
        }
    }
}

/// Reads requests until end of input, answering each line and flushing after each.
/// Lines that are not UTF-8, or longer than [`MAX_LINE_BYTES`], get an error
/// response like any other bad line; `limits` bound each request's search.
///
/// # Examples
///
/// Two request lines in, two answer lines out, as `sawah bot` answers its
/// standard input:
///
/// ```
/// use sawah_cli::commands::bot::lines::{Bot, serve};
/// use sawah_engine::registry::Registry;
/// use sawah_protocol::native::Limits;
///
/// let bot = Bot::new(Registry::new());
/// let input = concat!(
///     r#"{"cmd":"legal_moves","position":"ur light 7/-/0 7/-/0","roll":2}"#,
///     "\nnot json\n"
/// );
/// let mut output = Vec::new();
/// serve(&bot, &Limits::NONE, input.as_bytes(), &mut output).unwrap();
/// let lines: Vec<&str> = std::str::from_utf8(&output).unwrap().lines().collect();
/// assert_eq!(lines.len(), 2);
/// assert!(lines[0].starts_with(r#"{"moves":"#), "{}", lines[0]);
/// assert!(lines[1].contains("invalid_json"), "{}", lines[1]);
/// ```
pub fn serve(
    bot: &Bot,
    limits: &Limits,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        // MAX_LINE_BYTES of text, and its newline.
        let read = read_line_bounded(&mut input, &mut line, MAX_LINE_BYTES + 1)?;
        let response = if let BoundedLine::TooLong { ended } = read {
            if !ended {
                skip_rest_of_line(&mut input)?;
            }
            error_line(ProtocolError::new(
                ErrorKind::TooLarge,
                format!("the line is longer than {MAX_LINE_BYTES} bytes"),
            ))
        } else if read == BoundedLine::End {
            return Ok(());
        } else {
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            match std::str::from_utf8(text) {
                Ok(text) => bot.handle_line_within(text, limits.stop().as_ref()),
                Err(e) => error_line(ProtocolError::new(
                    ErrorKind::InvalidJson,
                    format!("the line is not UTF-8 text: {e}"),
                )),
            }
        };
        writeln!(output, "{response}")?;
        output.flush()?;
    }
}

/// Reads and drops input up to and including the next newline.
fn skip_rest_of_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                input.consume(all);
            }
        }
    }
}

fn error_line(error: ProtocolError) -> String {
    serde_json::json!(sawah_protocol::messages::ErrorAnswer { id: None, error }).to_string()
}
