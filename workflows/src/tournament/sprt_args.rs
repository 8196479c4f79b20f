//! The arguments of `sawah sprt`, and the test's settings they give.

use std::path::PathBuf;

/// The arguments of `sawah sprt`.
#[derive(clap::Args, Debug)]
pub struct SprtCommandArgs {
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    pub rules: String,
    /// The candidate agent.
    #[arg(long, value_name = "SPEC")]
    pub new: String,
    /// The agent it must beat.
    #[arg(long, value_name = "SPEC")]
    pub base: String,
    /// Elo difference under H0.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub elo0: f64,
    /// Elo difference under H1.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// False-negative rate.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// What the Elo bounds mean: logistic or normalized.
    #[arg(long, default_value = "logistic", value_parser = parse_model)]
    pub model: sawah_eval::ratings::sprt::EloModel,
    /// Seed for the dice of every pair.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pairs played between checks (the result does not depend on threads).
    #[arg(long, default_value_t = 64)]
    pub batch: u64,
    /// Stop without a decision after this many games.
    #[arg(long, default_value_t = 200_000)]
    pub max_games: u64,
    /// Write the outcome as JSON here.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// A solved table: the one `perfect` agents play from when their spec
    /// names none.
    #[arg(long, value_name = "PATH")]
    pub table: Option<String>,
    /// The shipped models' folder, where levels resolve; default: ./models,
    /// then the models embedded in the binary.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Where outside bots' stderr goes (DIR/NAME.log); without it, it is
    /// dropped (its last lines are still quoted when a bot fails).
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
    /// Outside bots (`--bots`) and how they are refereed.
    #[command(flatten)]
    pub outside: crate::entrants::OutsideArgs,
    /// Luck adjustment (`--luck-adjusted`, `--reference`).
    #[command(flatten)]
    pub luck: crate::luck::LuckArgs,
}

impl SprtCommandArgs {
    /// The test's settings.
    pub fn params(&self) -> sawah_eval::ratings::sprt::SprtParams {
        sawah_eval::ratings::sprt::SprtParams {
            elo0: self.elo0,
            elo1: self.elo1,
            alpha: self.alpha,
            beta: self.beta,
            model: self.model,
        }
    }
}

/// Parses `--model`.
fn parse_model(text: &str) -> Result<sawah_eval::ratings::sprt::EloModel, String> {
    text.parse()
}
