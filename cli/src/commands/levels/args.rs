//! The arguments of `sawah levels` and of its `build`.

use std::path::PathBuf;

/// The arguments of `sawah levels`.
#[derive(clap::Args, Debug)]
pub struct LevelsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: LevelsAction,
}

/// `sawah levels` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum LevelsAction {
    /// Make a rule set's levels: solve it (when the table fits --memory),
    /// distil and train its networks, choose hard's search, calibrate easy,
    /// medium and the strength dial, mine puzzles and write a report, into
    /// a models folder every front door loads with --models DIR. Rerun the
    /// same command to go on after an interruption.
    Build(BuildArgs),
}

/// The arguments of `sawah levels build`.
#[derive(clap::Args, Debug, Clone)]
pub struct BuildArgs {
    /// The rule set: a name, or a rule file (TOML or JSON) that then
    /// travels inside the folder.
    #[arg(long)]
    pub rules: String,
    /// The models folder to write: a new folder, or an existing models
    /// folder whose other rule sets are kept.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The seed of everything the build does (training, games, puzzles).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory for the solver, in GiB: the rule set is solved when its
    /// table fits, else its networks learn by self-play.
    #[arg(long, value_name = "GIB", default_value_t = 7.75)]
    pub memory: f64,
    /// The work folder: each stage's files and record, the solved table
    /// (default: OUT.work/RULES beside the models folder).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Redo this stage and every stage after it, even though its inputs
    /// changed or it finished (repeatable): solve, hard-network,
    /// small-network, hard-search, calibration, reference, check, puzzles,
    /// verify, report.
    #[arg(long, value_name = "STAGE")]
    pub force: Vec<String>,
    /// Scale every game and training budget by this factor (1: the
    /// budgets the targets were measured with; tests use less).
    #[arg(long, default_value_t = 1.0, hide = true)]
    pub effort: f64,
}
