//! `sawah play`: a game in the terminal against the computer.

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use sawah_agents::AgentSpec;
use sawah_engine::registry::Registry;
use sawah_engine::senet::daily::{self, DailyThrows};
use sawah_engine::{AnyGame, Player, with_game};
use std::io;
use std::path::PathBuf;

use crate::play;

/// The side a player takes.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Side {
    Light,
    Dark,
}

impl From<Side> for Player {
    fn from(side: Side) -> Player {
        match side {
            Side::Light => Player::Light,
            Side::Dark => Player::Dark,
        }
    }
}

/// The arguments of `sawah play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Rule set name (see `sawah rules`) or rule file path.
    #[arg(long, default_value = "sawah")]
    pub rules: String,
    /// The side you play (light moves first).
    #[arg(long, value_enum, default_value = "light")]
    pub side: Side,
    /// Seed for the dice and the computer's choices (default: from the clock; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Senet only: play the game of the day with the day's throws
    /// (DATE as YYYY-MM-DD; today, in UTC, when left out), against medium.
    #[arg(long, value_name = "DATE", num_args = 0..=1, default_missing_value = "today")]
    pub daily: Option<String>,
    /// The computer: a preset (easy, medium, hard) or a spec such as
    /// expectiminimax:depth=2:noise=0.02 (see docs/agents.md).
    #[arg(long, value_name = "SPEC")]
    pub opponent: Option<String>,
    /// The solved table for `--opponent perfect` (from `sawah solve --out`).
    #[arg(long, value_name = "PATH")]
    pub table: Option<String>,
    /// The models folder whose manifest serves easy, medium and hard
    /// (default: ./models, else the models embedded in the binary).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

/// Plays one game on the terminal.
pub fn run(registry: &mut Registry, args: PlayArgs) -> Result<()> {
    let PlayArgs {
        rules,
        side,
        seed,
        daily,
        opponent,
        table,
        models,
    } = args;
    let game = registry.resolve(&rules)?;
    let models = crate::models::find(models.as_deref())?;
    let seed_given = seed.is_some();
    let seed = seed.unwrap_or_else(clock_seed);
    let mut options = play::PlayOptions::seeded(side.into(), seed);
    if let Some(date) = daily {
        if !matches!(game, AnyGame::Senet(_)) {
            bail!("--daily is for senet only: the game of the day is a Senet game");
        }
        if opponent.as_deref().is_some_and(|o| o != "medium") {
            bail!("the game of the day is played against medium; leave out --opponent");
        }
        if seed_given {
            bail!("the game of the day's throws are the same for everyone; leave out --seed");
        }
        let date = if date == "today" {
            daily::today_utc()
        } else {
            date
        };
        let throws = DailyThrows::new(&date)?;
        options.rolls = play::Rolls::Daily { date, throws };
    }
    let opponent = opponent.as_deref().unwrap_or("medium").trim();
    options.opponent_name = opponent.to_string();
    let opponent = crate::models::expand(&models, opponent, game.name());
    options.opponent = AgentSpec::parse(&opponent, game.name()).context("--opponent")?;
    if options.opponent.table.is_none() {
        options.opponent.table = table;
    }
    let stdin = io::stdin();
    with_game!(&game, g => play::play(g, &options, stdin.lock(), io::stdout()))?;
    Ok(())
}

/// A seed from the clock, for games the player did not seed.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
