//! The public API of the solver: the solution, errors, and `solve`, which
//! walks the layer pairs from the last one down (options and reports are
//! in `options`).

use crate::checkpoint::Ignored;
pub use crate::options::{LayerReport, SolveOptions};
use crate::pair::solve_pair;
use crate::plan::{Layout, PolicyMemory, SAMPLE_STEP, held_values, packed_words_estimate};
use crate::policy::Rolls;
use crate::values::Values;
use sawah_engine::race::{LayerPair, LayerSet, Position, PositionIndex, RuleSet};

/// A solved rule set, or the layers of it that were solved: every
/// position's value for the side to move.
pub struct Solution {
    /// The layers solved (every layer, unless a partial solve).
    pub layers_solved: LayerSet,
    /// The index the values are laid out by.
    pub index: PositionIndex,
    /// `values[index(position)]`.
    pub values: Vec<f64>,
    /// One report per layer pair, in solving order.
    pub layers: Vec<LayerReport>,
    /// The largest residual over the layer pairs.
    pub residual: f64,
}

impl Solution {
    /// The win probability for the side to move, where the solved layers
    /// hold the position.
    pub fn get(&self, position: &Position) -> Option<f64> {
        self.index
            .holds(position)
            .then(|| self.values[self.index.index(position) as usize])
    }

    /// The win probability for the side to move of a position the solved
    /// layers hold (every position, after a whole solve).
    ///
    /// # Panics
    ///
    /// When a partial solve does not hold `position`: see [`Solution::get`].
    pub fn value(&self, position: &Position) -> f64 {
        self.values[self.index.index(position) as usize]
    }
}

/// A memory size in GiB, written so that a small one does not read 0.00.
fn gib(value: f64) -> String {
    if value >= 0.01 {
        format!("{value:.2} GiB")
    } else {
        format!("{:.1} KiB", value * (1u64 << 20) as f64)
    }
}

/// Why a solve could not be done.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The rule set has more positions than the solver's records can name
    /// (2^30 − 1).
    #[error(
        "{name} has {states} positions; the solver handles fewer than 2^30 − 1 (1,073,741,823)"
    )]
    TooLarge {
        /// The rule set.
        name: String,
        /// Its position count.
        states: u64,
    },
    /// The memory budget does not hold the values and one candidate move
    /// per roll for the largest layer pair.
    #[error(
        "{name} needs at least {} (values and one recorded move per roll for the largest layer pair); the budget is {}", gib(*needed), gib(*budget)
    )]
    Memory {
        /// The rule set.
        name: String,
        /// The smallest workable budget, GiB.
        needed: f64,
        /// The budget given, GiB.
        budget: f64,
    },
    /// A layer checkpoint could not be written.
    #[error("cannot write a solver checkpoint: {0}")]
    Checkpoint(#[from] std::io::Error),
    /// A layer pair did not reach the tolerance within the sweeps the rule
    /// set is given ([`sweep_bound`]).
    #[error(
        "layers {pair} did not converge within {sweeps} sweeps (residual {residual:e}, tolerance {tolerance:e})"
    )]
    NoConvergence {
        /// The pair.
        pair: LayerPair,
        /// Sweeps made.
        sweeps: u32,
        /// The residual reached.
        residual: f64,
        /// The tolerance asked for.
        tolerance: f64,
    },
}

/// The most sweeps a layer pair of `rules` is given: 200 for every step of
/// the route and every piece (the named rule sets need at most about 900;
/// rules whose pieces could never leave are refused when they load, so
/// every pair converges). A pair that has not converged by then is an
/// error, not a table with a larger residual.
pub fn sweep_bound(rules: &RuleSet) -> u32 {
    200 * (rules.route_len() as u32 + 1) * u32::from(rules.pieces())
}

/// Solves every position of `rules`. `progress` is called after each sweep
/// with the layer pair's scores, the sweep number and its largest change.
///
/// # Examples
///
/// The tiny test variant `sawah-1` (one piece a side) solved exactly: the
/// side to move at the start is ahead, and a position with the mover's
/// piece one step from home is worth more than the start.
///
/// ```
/// use sawah_engine::race;
/// use sawah_solver::{SolveOptions, solve};
///
/// let rules = race::preset("sawah-1").unwrap();
/// let solution = solve(&rules, SolveOptions::default(), |_| {}).unwrap();
/// let start = solution.value(&rules.start());
/// assert!(start > 0.5 && start < 1.0, "{start}");
/// assert_eq!(solution.get(&rules.start()), Some(start));
/// ```
pub fn solve(
    rules: &RuleSet,
    options: SolveOptions,
    progress: impl FnMut(&LayerReport),
) -> Result<Solution, SolveError> {
    solve_with_checkpoints(rules, options, None, progress)
}

/// [`solve`], saving each finished layer pair in `checkpoints` (a folder)
/// and taking pairs already saved there instead of solving them again.
/// Reports of resumed pairs have 0 sweeps.
pub fn solve_with_checkpoints(
    rules: &RuleSet,
    options: SolveOptions,
    checkpoints: Option<&std::path::Path>,
    progress: impl FnMut(&LayerReport),
) -> Result<Solution, SolveError> {
    let whole = LayerSet::whole(rules.pieces());
    solve_layers(rules, &whole, options, checkpoints, progress)
}

/// [`solve_with_checkpoints`] of the layers of `layers` alone: a partial
/// solve, exact where it holds (the set is closed under play, so no value
/// it holds depends on a layer outside it). The values are laid out by
/// [`PositionIndex::of_layers`]. A pair's checkpoint records its index
/// ranges, so a partial solve resumes from its own checkpoints only (one
/// of a whole solve is solved again, with a word why).
pub fn solve_layers(
    rules: &RuleSet,
    layers: &LayerSet,
    options: SolveOptions,
    checkpoints: Option<&std::path::Path>,
    mut progress: impl FnMut(&LayerReport),
) -> Result<Solution, SolveError> {
    let options = SolveOptions {
        max_sweeps: options.max_sweeps.min(sweep_bound(rules)),
        ..options
    };
    let index = PositionIndex::of_layers(rules, layers);
    let n = index.len();
    // Successors are recorded as u32 indices with two flag bits.
    if n >= crate::record::MAX_POSITIONS {
        return Err(SolveError::TooLarge {
            name: rules.name().to_string(),
            states: n,
        });
    }
    let p = rules.pieces();
    let pairs = layers.pairs().to_vec();
    // With checkpoints, the values no pair still to come reads are given
    // back to the kernel (and read back from the checkpoints at the end).
    let release = checkpoints.is_some();
    let layouts = plan_layouts(rules, &index, &pairs, release, options.memory)?;
    let values = Values(crate::memory::zeroed(n as usize));
    set_finished_positions(&index, &values, p);
    let moving_rolls = Rolls::new(rules).moving.len();
    let mut policy_memory =
        PolicyMemory::reserve(pairs.iter().zip(&layouts).map(|(&pair, layout)| {
            // At most one twin pair per position of the layer (a != b: exactly).
            let range = index.layer_range(pair.mover, pair.opponent);
            let twin_pairs = (range.end - range.start) as usize;
            layout.per_twin_pair(moving_rolls, p).times(twin_pairs)
        }));
    let mut released = Vec::new();
    let mut reports = Vec::new();
    for total in (0..=2 * (p - 1)).rev() {
        if release {
            for &pair in pairs.iter().filter(|pair| pair.borne_off() == total + 2) {
                values
                    .of_pair(&index, pair)
                    .into_iter()
                    .for_each(crate::memory::release);
                released.push(pair);
            }
        }
        for (&pair, &layout) in pairs
            .iter()
            .zip(&layouts)
            .filter(|(pair, _)| pair.borne_off() == total)
        {
            let job = PairJob {
                rules,
                index: &index,
                values: &values,
                pair,
                layout,
                options,
                checkpoints,
            };
            reports.push(job.resume_or_solve(&mut policy_memory, &mut progress)?);
        }
    }
    // The records go before the released values come back, so that the two
    // are not held at once.
    drop(policy_memory);
    if let Some(dir) = checkpoints {
        for &pair in &released {
            if let Err(reason) = values.restore(dir, rules, &index, pair) {
                return Err(SolveError::Checkpoint(std::io::Error::other(format!(
                    "the checkpoint of layers {pair} in {} could not be read back: {reason}",
                    dir.display()
                ))));
            }
        }
    }
    let residual = reports.iter().map(|r| r.residual).fold(0.0, f64::max);
    Ok(Solution {
        layers_solved: layers.clone(),
        index,
        values: values
            .0
            .into_iter()
            .map(|v| f64::from_bits(v.into_inner()))
            .collect(),
        layers: reports,
        residual,
    })
}

/// Each layer pair's record layout (in the order of `pairs`), the widest
/// that fits the memory budget; an error when not even the narrowest
/// layout of some pair fits.
fn plan_layouts(
    rules: &RuleSet,
    index: &PositionIndex,
    pairs: &[LayerPair],
    release: bool,
    memory: u64,
) -> Result<Vec<Layout>, SolveError> {
    let p = rules.pieces();
    let rolls = Rolls::new(rules);
    let moving_rolls = rolls.moving.len();
    let held = |pair| held_values(index, p, pair, release);
    let least_needed = least_needed(rules, index, pairs, release);
    if least_needed > memory {
        let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
        return Err(SolveError::Memory {
            name: rules.name().to_string(),
            needed: gib(least_needed),
            budget: gib(memory),
        });
    }
    Ok(pairs
        .iter()
        .map(|&pair| {
            let words = packed_words_estimate(rules, index, &rolls, pair, SAMPLE_STEP);
            let shape = (index.pair_len(pair), words);
            Layout::that_fits(held(pair), shape, moving_rolls, p, memory)
                .unwrap_or(Layout::NARROWEST)
        })
        .collect())
}

/// The least memory a solve of `pairs` on `index` needs, in bytes: the
/// values held and one recorded candidate per roll for the pair that
/// needs the most.
pub(crate) fn least_needed(
    rules: &RuleSet,
    index: &PositionIndex,
    pairs: &[LayerPair],
    release: bool,
) -> u64 {
    let p = rules.pieces();
    let moving_rolls = Rolls::new(rules).moving.len();
    pairs
        .iter()
        .map(|&pair| {
            8 * held_values(index, p, pair, release)
                + Layout::NARROWEST.bytes(index.pair_len(pair), 0, moving_rolls, p)
        })
        .max()
        .unwrap_or(0)
}

/// Finished positions: the mover has borne off everything (1) or the
/// opponent has (0).
fn set_finished_positions(index: &PositionIndex, values: &Values, p: u8) {
    for (a, b, value) in (0..p).flat_map(|x| [(p, x, 1.0), (x, p, 0.0)]) {
        for i in index.layer_range(a, b) {
            values.set(i, value);
        }
    }
}

/// One layer pair of a solve: taken from its checkpoint, or solved.
struct PairJob<'a> {
    rules: &'a RuleSet,
    index: &'a PositionIndex,
    values: &'a Values,
    pair: LayerPair,
    layout: Layout,
    options: SolveOptions,
    checkpoints: Option<&'a std::path::Path>,
}

impl PairJob<'_> {
    /// The pair's report: resumed from a valid checkpoint, or solved (and
    /// saved) after telling why a checkpoint that was there was not used.
    fn resume_or_solve(
        &self,
        policy_memory: &mut PolicyMemory,
        progress: &mut impl FnMut(&LayerReport),
    ) -> Result<LayerReport, SolveError> {
        let states = self.index.pair_len(self.pair);
        let saved = self
            .checkpoints
            .map(|dir| self.values.restore(dir, self.rules, self.index, self.pair));
        let ignored = match saved {
            Some(Ok(residual)) => {
                return Ok(LayerReport {
                    residual,
                    ..LayerReport::empty(self.pair, states)
                });
            }
            Some(Err(Ignored::Missing)) | None => None,
            Some(Err(reason)) => Some(reason.to_string()),
        };
        if let Some(reason) = &ignored {
            // Told before the pair is solved again, once.
            progress(&LayerReport {
                ignored_checkpoint: Some(reason.clone()),
                ..LayerReport::empty(self.pair, states)
            });
        }
        let mut report = solve_pair(
            self.rules,
            self.index,
            self.values,
            self.pair,
            self.layout,
            policy_memory,
            self.options,
            progress,
        );
        report.ignored_checkpoint = ignored;
        if report.residual > self.options.tolerance {
            return Err(SolveError::NoConvergence {
                pair: self.pair,
                sweeps: report.sweeps,
                residual: report.residual,
                tolerance: self.options.tolerance,
            });
        }
        if let Some(dir) = self.checkpoints {
            crate::checkpoint::save(
                dir,
                self.rules,
                self.index,
                self.pair,
                report.residual,
                |i| self.values.get(i),
            )?;
        }
        Ok(report)
    }
}
