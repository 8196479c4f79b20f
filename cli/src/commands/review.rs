//! `sawah review`: a game reviewed against a solved table.

use anyhow::{Context, Result, bail};
use sawah_agents::table::Table;
use sawah_engine::AnyGame;
use sawah_engine::registry::Registry;
use sawah_eval::review::{read_record, review};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest game file read.
const MAX_RECORD_BYTES: u64 = 16 << 20;

/// The arguments of `sawah review`.
#[derive(clap::Args, Debug)]
pub struct ReviewArgs {
    /// The game: a game record (JSON, see docs/protocol.md), or a
    /// tournament's results.jsonl (with --game-number).
    pub game: PathBuf,
    /// Which game of a results.jsonl, from 1.
    #[arg(long, default_value_t = 1)]
    pub game_number: usize,
    /// The solved table of the game's rule set: the reference the moves
    /// are measured against (exact).
    #[arg(long, value_name = "PATH")]
    pub table: PathBuf,
    /// md (a table per player and per turn), json, or svg (the win
    /// probability over the game, with luck and mistakes marked).
    #[arg(long, default_value = "md")]
    pub format: String,
    /// Whose chances the svg shows: light or dark.
    #[arg(long, default_value = "light")]
    pub view: String,
}

/// Reads the game, reviews it and prints the review.
pub fn run(registry: &mut Registry, args: ReviewArgs) -> Result<()> {
    if !matches!(args.format.as_str(), "md" | "json" | "svg") {
        bail!("--format {}: md, json or svg", args.format);
    }
    let view = sawah_engine::Player::parse(&args.view)
        .with_context(|| format!("--view {}: light or dark", args.view))?;
    let value = read_game(&args.game, args.game_number)?;
    let (rules, tokens) = read_record(&value).with_context(|| args.game.display().to_string())?;
    let game = registry.resolve(&rules)?;
    let AnyGame::Race(race) = &game else {
        bail!(
            "{rules} has no solved table: reviews are against a solved table, for the race rule sets"
        );
    };
    let table = Table::open(&args.table, race)?;
    let reference = format!(
        "perfect play by the solved table {}",
        args.table.file_name().map_or_else(
            || args.table.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    );
    let review = review(race, &table, &reference, &tokens)
        .with_context(|| format!("{} does not replay", args.game.display()))?;
    match args.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&review)?),
        "svg" => print!("{}", review.svg(view).map_err(anyhow::Error::msg)?),
        _ => print!("{}", review.markdown()),
    }
    Ok(())
}

/// The game in `path`: the file as one JSON object, or game `number` of a
/// results.jsonl (whose first line is its header).
fn read_game(path: &Path, number: usize) -> Result<serde_json::Value> {
    let file = std::fs::File::open(path).with_context(|| path.display().to_string())?;
    let mut text = String::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| path.display().to_string())?;
    if text.len() as u64 > MAX_RECORD_BYTES {
        bail!("{}: larger than 16 MiB", path.display());
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
        return Ok(value);
    }
    // A results file: its header (the line with "kind") is not a game.
    let games: Vec<&str> = text
        .lines()
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.get("kind").is_none())
        })
        .collect();
    let line = number
        .checked_sub(1)
        .and_then(|k| games.get(k))
        .with_context(|| {
            format!(
                "{}: no game {number} (it holds {})",
                path.display(),
                games.len()
            )
        })?;
    serde_json::from_str(line)
        .with_context(|| format!("{}: game {number} is not JSON", path.display()))
}
