//! `sawah bot`: arguments, start-up, then the JSON-lines loop of `crate::commands::bot::lines`.

pub mod lines;

use anyhow::Result;
use sawah_engine::registry::Registry;
use std::io::{self, BufWriter};

use lines::LimitArgs;
use sawah_workflows::bots::{self, BotFiles};

/// The arguments of `sawah bot`.
#[derive(clap::Args, Debug)]
pub struct BotArgs {
    /// The solved tables and models it reads.
    #[command(flatten)]
    pub files: BotFiles,
    /// Requests come from people or programs not trusted with this
    /// machine: read no file a request names by path (only levels and
    /// the file names of the models and tables given here), and bound
    /// each request's cost (the limits below).
    #[arg(long)]
    pub untrusted: bool,
    /// What one request may cost.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Loads everything, then answers stdin until end of input.
pub fn bot_command(registry: Registry, args: BotArgs) -> Result<()> {
    let limits = args.limits.limits(args.untrusted);
    let setup = bots::setup(&args.files, args.untrusted, limits)?;
    let server = bots::native_bot(registry, &setup)?;
    // The levels and the review reference always run: a depth bound they
    // would break stops the start (as `sawah serve` does).
    server
        .check_levels_within_depth()
        .map_err(anyhow::Error::msg)?;
    let stdin = io::stdin();
    lines::serve(&server, &limits, stdin.lock(), BufWriter::new(io::stdout()))?;
    Ok(())
}
