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
    /// table fits, else the late layers that fit are solved and its
    /// networks learn by self-play with their exact values.
    #[arg(long, value_name = "GIB", default_value_t = 7.75)]
    pub memory: f64,
    /// The exact values of the late positions to train with on the
    /// self-play route, instead of solving them in the build: a partial
    /// table (`sawah solve --partial`) or, for Senet, an endgame table
    /// (`sawah solve --rules senet --pieces K`; the build solves three
    /// pieces a side itself).
    #[arg(long, value_name = "FILE")]
    pub endgame: Option<PathBuf>,
    /// A whole table the build does not train with, to measure hard
    /// against perfect play in the report (a rule set sent down the
    /// self-play route by --memory, for comparison).
    #[arg(long, value_name = "FILE")]
    pub table: Option<PathBuf>,
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
    /// Sharing the training games among shard processes.
    #[command(flatten)]
    pub sharing: crate::sharing::ShardingArgs,
    /// Scale every game and training budget by this factor (1: the
    /// budgets the targets were measured with; tests use less).
    #[arg(long, default_value_t = 1.0, hide = true)]
    pub effort: f64,
}
