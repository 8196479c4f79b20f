//! `sawah solve` and `sawah quantize`: arguments for `crate::solve::run`.

pub mod run;

use anyhow::Result;
use sawah_agents::table::ValueType;
use sawah_engine::registry::Registry;
use std::path::PathBuf;

/// The arguments of `sawah solve`.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// Rule set name or rule file path (race family), or senet with --pieces.
    #[arg(long)]
    pub rules: String,
    /// Senet only: solve its endgames, every position with at most this
    /// many pieces per side on the board (1 to 5; 3 is 12,230,750
    /// positions, 4 is 437,373,650, 5 the whole game, 8,560,690,670, left
    /// out the same). The plan (positions, memory, time) is printed first,
    /// and a solve larger than --memory refused with it; with --out each
    /// finished layer pair is kept in OUT.layers/, so a killed solve
    /// resumes where it stopped.
    #[arg(long, value_name = "K", conflicts_with = "partial")]
    pub pieces: Option<u8>,
    /// Stop when a read-only pass shows max |T(V) - V| at most this.
    #[arg(long, default_value_t = 1e-10)]
    pub tolerance: f64,
    /// Print every sweep, not only every layer pair.
    #[arg(long)]
    pub verbose: bool,
    /// Write the table here (with a header; atomically).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// How the table stores values: f32 (for play), or u16 (half the
    /// size, within 7.6e-6 of the solved values).
    #[arg(long, default_value_t = ValueType::F32)]
    pub values: ValueType,
    /// Memory for the values and the recorded moves, in GiB (Senet: the
    /// values alone): each layer
    /// pair records every move, or as many candidate moves per roll as
    /// fit (up to 4), keeping each roll's choice among them when that
    /// fits too; fewer cost more Bellman passes. With --out only the
    /// values a pair reads are held (the rest are in the checkpoints).
    /// Peak use is about this plus a few tens of MB (the table is
    /// streamed to disk), so the default keeps the 7-piece solves under
    /// 8 GiB.
    #[arg(long, value_name = "GIB", default_value_t = 7.75)]
    pub memory: f64,
    /// Race family: when the whole table does not fit --memory (or has
    /// more positions than the solver indexes, 2^30 - 1), solve the late
    /// layers that do: every layer pair from the most pieces borne off
    /// down while it fits. Exact where it holds; the table says which
    /// layers (a partial table, for training and puzzles, not perfect play).
    #[arg(long, conflicts_with = "pieces")]
    pub partial: bool,
    /// Race family: do not extrapolate the values along the sweeps' changes when
    /// they shrink by a steady ratio (for measuring what it gains).
    #[arg(long, conflicts_with = "pieces")]
    pub no_extrapolation: bool,
}

/// The arguments of `sawah quantize`.
#[derive(clap::Args, Debug)]
pub struct QuantizeArgs {
    /// Rule set name or rule file path (race family).
    #[arg(long)]
    pub rules: String,
    /// The solved f32 table.
    #[arg(long, value_name = "PATH")]
    pub table: PathBuf,
    /// Where to write the u16 table (atomically).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
}

/// Solves the rule set and writes its table when asked.
pub fn solve_command(registry: &mut Registry, args: SolveArgs) -> Result<()> {
    match registry.resolve(&args.rules)? {
        sawah_engine::AnyGame::Senet(_) => run::solve_senet_endgames(&args),
        sawah_engine::AnyGame::Race(_) if args.pieces.is_some() => anyhow::bail!(
            "--pieces is for senet's endgames; a race rule set is solved whole (leave it out)"
        ),
        sawah_engine::AnyGame::Race(_) => run::solve(registry, &args),
    }
}

/// Writes the u16 copy of a table.
pub fn quantize_command(registry: &mut Registry, args: QuantizeArgs) -> Result<()> {
    run::quantize(registry, &args.rules, &args.table, &args.out)
}
