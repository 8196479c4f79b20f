//! `sawah match`: two agents, paired dice, the first one's score.

use anyhow::{Context, Result, bail};
use sawah_agents::AgentSpec;
use sawah_engine::AnyGame;
use sawah_engine::registry::Registry;
use sawah_eval::matches::play_match;
use sawah_eval::stats::elo_from_score;
use std::path::PathBuf;

/// The arguments of `sawah match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The first agent (spec or preset).
    pub first: String,
    /// The second agent (spec or preset).
    pub second: String,
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    pub rules: String,
    /// Games to play (rounded up to whole pairs).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// Seed for the dice of every pair (and the agents' choices).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The shipped models' folder, where levels (easy, medium, hard)
    /// resolve; default: ./models, then the source tree's.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

/// Plays the match and prints the score with its interval.
pub fn run(registry: &mut Registry, args: MatchArgs) -> Result<()> {
    let MatchArgs {
        first,
        second,
        rules,
        games,
        seed,
        models,
    } = args;
    if games == 0 || games > 100_000_000 {
        bail!("--games must be from 1 to 100000000, not {games}");
    }
    let game = registry.resolve(&rules)?;
    let models = crate::models::find(models.as_deref())?;
    let expand = |text: &str| crate::models::expand(&models, text, game.name());
    let first = AgentSpec::parse(&expand(&first), game.name()).context("first agent")?;
    let second = AgentSpec::parse(&expand(&second), game.name()).context("second agent")?;
    let result = match &game {
        AnyGame::Race(r) => play_match(&**r, &first, &second, games, seed),
        AnyGame::Senet(s) => play_match(&**s, &first, &second, games, seed),
    }?;
    let score = result.score();
    println!(
        "{} vs {} on {}: {} games ({} pairs, paired dice, seed {seed})",
        result.first,
        result.second,
        game.name(),
        result.games(),
        result.pair_scores.len()
    );
    println!(
        "  {} wins {}, {} wins {}, stopped {}; light (first to move) won {}; {:.1} rolls/game",
        result.first,
        result.first_wins,
        result.second,
        result.second_wins,
        result.stopped,
        result.light_wins,
        result.mean_rolls
    );
    println!(
        "  score {:.3} (95% CI {:.3} to {:.3}), Elo difference {:+.0} ({:+.0} to {:+.0})",
        score.mean,
        score.low,
        score.high,
        elo_from_score(score.mean),
        elo_from_score(score.low),
        elo_from_score(score.high)
    );
    Ok(())
}
