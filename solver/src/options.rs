//! How a solve is run, and what it reports of each layer pair: read by
//! the solve, the plan and the pairs alike.

use sawah_engine::race::LayerPair;
use std::time::Duration;

/// How a solve is run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveOptions {
    /// Stop when the residual pass shows `max |T(V) − V|` at most this.
    pub tolerance: f64,
    /// Give up on a layer pair after this many sweeps (a safeguard).
    pub max_sweeps: u32,
    /// Memory for the values held (8 bytes per position: every position,
    /// or with checkpoints only the finished positions and the two score
    /// diagonals the pair reads) and the recorded candidate moves of the
    /// layer pair being solved, in bytes. Each pair records every move if
    /// that fits, else as many candidates per roll as fit (4, 3, 2 or 1,
    /// with each roll's choice among them when that fits too; see
    /// `Layout::that_fits`); fewer candidates cost more Bellman passes.
    pub memory: u64,
    /// Extrapolate the values along the sweeps' changes once they shrink
    /// by a steady ratio (`extrapolation`); off only to measure what it
    /// gains.
    pub extrapolate: bool,
}

/// The candidate widths tried when every move does not fit, widest first:
/// with three, sweeps already follow most policy changes that matter
/// (measured on `masters-3`'s largest pair: 1 candidate 10 Bellman passes,
/// 2 seven, 3 four, all moves four; sawah's (0, 2) pair, 74 M positions:
/// 3 candidates 7 passes, 4 six).
pub(crate) const PARTIAL_WIDTHS: [usize; 4] = [4, 3, 2, 1];

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            tolerance: 1e-10,
            max_sweeps: 100_000,
            // 7.75 GiB, as `sawah solve --memory` (docs/solver.md).
            memory: (775 << 30) / 100,
            extrapolate: true,
        }
    }
}

/// What happened while solving one layer pair.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerReport {
    /// The layers: (mover's, opponent's) borne-off counts, and the mirror.
    pub scores: LayerPair,
    /// Positions in the pair.
    pub states: u64,
    /// In-place sweeps made under a recorded policy (including those over
    /// the chosen moves only).
    pub sweeps: u32,
    /// Of the sweeps, those that read only each roll's chosen candidate.
    pub choice_sweeps: u32,
    /// The twin pairs the other sweeps read over every candidate, in whole
    /// sweeps (with the choices kept, a pair whose choice margin holds is
    /// read from its choices alone; see `ChoiceMargins`).
    pub read_in_full: f64,
    /// Bellman passes made (every move generated; the last one only reads
    /// values and measures the residual).
    pub bellman_passes: u32,
    /// The twin pairs whose moves the Bellman passes generated, in whole
    /// passes (the first pass generates every pair; later passes only those
    /// whose best moves may have left their candidates, see `margins`).
    pub generated_passes: f64,
    /// Times the values were extrapolated along a sweep's changes.
    pub extrapolations: u32,
    /// Candidate successors recorded per position and roll.
    pub candidates: usize,
    /// The residual of the last (read-only) pass.
    pub residual: f64,
    /// Wall time.
    pub elapsed: Duration,
    /// Why this pair's checkpoint was not used, when one was there but
    /// damaged or foreign (the pair was then solved again).
    pub ignored_checkpoint: Option<String>,
}

impl LayerReport {
    /// The report of pair `scores` (of `states` positions) before any work:
    /// no sweeps, no passes, residual 0.
    pub fn empty(scores: LayerPair, states: u64) -> LayerReport {
        LayerReport {
            scores,
            states,
            sweeps: 0,
            choice_sweeps: 0,
            read_in_full: 0.0,
            bellman_passes: 0,
            generated_passes: 0.0,
            extrapolations: 0,
            candidates: 0,
            residual: 0.0,
            elapsed: Duration::ZERO,
            ignored_checkpoint: None,
        }
    }
}
