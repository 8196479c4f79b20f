//! `sawah export-games`: a tournament's games written out one file per
//! game, as RGN (RoyalUr's game notation, for royalur.net and its tools)
//! or as JSON game records.

use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use sawah_engine::rgn;
use sawah_eval::arena::results::GameRecord;
use std::path::{Path, PathBuf};

/// The arguments of `sawah export-games`.
#[derive(clap::Args, Debug)]
pub struct ExportGamesArgs {
    /// A tournament's folder, or its results.jsonl.
    pub results: PathBuf,
    /// rgn (RoyalUr's notation; race rule sets only) or json (game records
    /// as `sawah review` reads them).
    #[arg(long, default_value = "rgn")]
    pub format: String,
    /// The folder to write game-00001.rgn, game-00002.rgn, … into (made if
    /// missing; each file written atomically). Without it, the games go to
    /// standard output, a blank line between two games.
    #[arg(long, value_name = "FOLDER")]
    pub out: Option<PathBuf>,
}

/// Writes every game of the results file in the chosen format.
pub fn run(registry: &Registry, args: ExportGamesArgs) -> Result<()> {
    let extension = match args.format.as_str() {
        "rgn" | "json" => args.format.as_str(),
        other => bail!("--format {other}: rgn or json"),
    };
    let path = if args.results.is_dir() {
        args.results.join("results.jsonl")
    } else {
        args.results.clone()
    };
    if let Some(out) = &args.out {
        sawah_engine::files::create_dir_all(out)
            .with_context(|| format!("--out {}", out.display()))?;
    }
    // A game at a time: memory goes with the longest line, not the file.
    let games = sawah_workflows::results_lines::each_game(&path, |k, line| {
        let name = || format!("{}: game {k}", path.display());
        let game: GameRecord = serde_json::from_str(line)
            .with_context(|| format!("{}: not a game of a results file", name()))?;
        let written = export(registry, &game, extension).with_context(name)?;
        match &args.out {
            Some(out) => write_game(out, k, extension, &written)?,
            None if k == 1 => print!("{written}"),
            None => print!("\n{written}"),
        }
        Ok(())
    })?;
    if games == 0 {
        bail!("{}: no games in it", path.display());
    }
    if let Some(out) = &args.out {
        eprintln!(
            "{games} games written to {} (game-00001.{extension} …)",
            out.display()
        );
    }
    Ok(())
}

/// One game as text in `format`, ending in a newline.
fn export(registry: &Registry, game: &GameRecord, format: &str) -> Result<String> {
    Ok(match format {
        "rgn" => rgn::from_moves(registry, &game.rules, &tags_of(game)?, &game.moves)? + "\n",
        _ => serde_json::to_string_pretty(game)? + "\n",
    })
}

/// A results game's fields as RGN tags after `Rules`: who played, the
/// pair and seed, the winner and any forfeit (as JSON).
fn tags_of(game: &GameRecord) -> Result<Vec<(String, String)>> {
    let mut tags = vec![
        (rgn::LIGHT_TAG.to_string(), game.light.clone()),
        (rgn::DARK_TAG.to_string(), game.dark.clone()),
        ("Pair".to_string(), game.pair.to_string()),
        ("Seed".to_string(), game.seed.to_string()),
    ];
    if let Some(winner) = game.winner {
        tags.push(("Winner".to_string(), winner.name().to_string()));
    }
    if let Some(failure) = &game.failure {
        tags.push(("Failure".to_string(), serde_json::to_string(failure)?));
    }
    Ok(tags)
}

fn write_game(out: &Path, number: usize, extension: &str, text: &str) -> Result<()> {
    let file = out.join(format!("game-{number:05}.{extension}"));
    sawah_agents::files::write_atomically(&file, text.as_bytes())
        .with_context(|| file.display().to_string())
}
