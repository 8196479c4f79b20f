//! `sawah bot`: the bot protocol (`sawah-protocol`) over JSON lines on
//! stdin and stdout. One request per line in, one response per line out, in
//! order, flushed after each; every line gets exactly one response, a
//! malformed one an error response, and only end of input stops the server.

use sawah_agents::assets::FileAssets;
use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use sawah_protocol::{ErrorKind, ProtocolError};
use std::io::{self, BufRead, Write};

pub use sawah_protocol::Bot;

/// The bot `sawah bot` runs: the rule sets of `registry`, the shipped
/// models and a default table if given, and model, table and weights files
/// named in requests read from the file system by path.
pub fn native_bot(registry: Registry, table: Option<String>, models: Option<Models>) -> Bot {
    Bot::new(registry)
        .with_models(models)
        .with_table(table)
        .with_fallback(FileAssets)
}

/// Reads requests until end of input, answering each line and flushing after each.
/// Lines that are not UTF-8 get an error response like any other bad line.
pub fn serve(bot: &Bot, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        let response = match std::str::from_utf8(line) {
            Ok(text) => bot.handle_line(text),
            Err(e) => serde_json::json!({
                "error": ProtocolError::new(
                    ErrorKind::InvalidJson,
                    format!("the line is not UTF-8 text: {e}"),
                )
                .to_json()
            })
            .to_string(),
        };
        writeln!(output, "{response}")?;
        output.flush()?;
    }
    Ok(())
}
