//! The exact solver: the win probability for the side to move of every
//! position of a race rule set, by value iteration over score layers.
//!
//! `V(s) = Σ_r P(r) · max over moves of the successor's value`, where a
//! successor with the same side to move (an extra roll) counts as is, one
//! where the turn passed as `1 − V`, a win as 1, and a roll with no move
//! passes (`1 − V` of the same pieces with the opponent to move). Scores
//! never decrease, so layers (mover's borne-off count `a`, opponent's `b`)
//! are solved from the highest total down; a layer and its mirror `(b, a)`
//! depend on each other (passes and moves hand the turn over) and, through
//! captures, on themselves, so each such pair is iterated to a fixed point:
//! in-place (Gauss–Seidel) sweeps, parallel over the index's blocks, until a
//! full residual pass, which only reads, shows `max |T(V) − V| ≤ tolerance`.

use rayon::prelude::*;
use sawah_engine::race::{Position, PositionIndex, RuleSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
}

/// The candidate widths tried when every move does not fit, widest first:
/// with three, sweeps already follow most policy changes that matter
/// (measured on `masters-3`'s largest pair: 1 candidate 10 Bellman passes,
/// 2 seven, 3 four, all moves four; sawah's (0, 2) pair, 74 M positions:
/// 3 candidates 7 passes, 4 six).
const PARTIAL_WIDTHS: [usize; 4] = [4, 3, 2, 1];

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            tolerance: 1e-10,
            max_sweeps: 100_000,
            memory: 15 << 29,
        }
    }
}

/// What happened while solving one layer pair.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerReport {
    /// The layers: (mover's, opponent's) borne-off counts, and the mirror.
    pub scores: (u8, u8),
    /// Positions in the pair.
    pub states: u64,
    /// In-place sweeps made under a recorded policy (including those over
    /// the chosen moves only).
    pub sweeps: u32,
    /// Of the sweeps, those that read only each roll's chosen candidate.
    pub choice_sweeps: u32,
    /// Bellman passes made (every move generated; the last one only reads
    /// values and measures the residual).
    pub bellman_passes: u32,
    /// Candidate successors recorded per position and roll.
    pub candidates: usize,
    /// The residual of the last (read-only) pass.
    pub residual: f64,
    /// Wall time.
    pub elapsed: Duration,
}

/// A solved rule set: every position's value for the side to move.
pub struct Solution {
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
    /// The win probability for the side to move.
    pub fn value(&self, position: &Position) -> f64 {
        self.values[self.index.index(position) as usize]
    }
}

/// The values being solved, shared between threads (f64 bits in atomics;
/// relaxed order: in-place iteration tolerates reading a neighbour's old value).
struct Values(Vec<AtomicU64>);

impl Values {
    #[inline]
    fn get(&self, i: u64) -> f64 {
        f64::from_bits(self.0[i as usize].load(Ordering::Relaxed))
    }
    #[inline]
    fn set(&self, i: u64, v: f64) {
        self.0[i as usize].store(v.to_bits(), Ordering::Relaxed);
    }
    /// The values of a layer pair, one slice per layer.
    fn of_pair(&self, index: &PositionIndex, pair: (u8, u8)) -> Vec<&[AtomicU64]> {
        crate::checkpoint::pair_ranges(index, pair)
            .into_iter()
            .map(|range| &self.0[range.start as usize..range.end as usize])
            .collect()
    }
    /// Sets a layer pair's values from its checkpoint in `dir`; returns the
    /// residual it was saved with, or `None` (nothing set) without a valid one.
    fn restore(
        &self,
        dir: &std::path::Path,
        rules: &RuleSet,
        index: &PositionIndex,
        pair: (u8, u8),
    ) -> Option<f64> {
        let (saved, residual) = crate::checkpoint::load(dir, rules, index, pair)?;
        let all = self.of_pair(index, pair).into_iter().flatten();
        for (value, v) in all.zip(saved) {
            value.store(v.to_bits(), Ordering::Relaxed);
        }
        Some(residual)
    }
    /// Asks the cache for value `i` ahead of its use (a hint; no effect
    /// off x86-64 or past the end).
    #[inline]
    fn prefetch(&self, i: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(value) = self.0.get(i as usize) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: a prefetch only hints the cache; the address is a
            // live element of the vector.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(value.as_ptr().cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }
}

/// The position's twin across a pass: the same pieces, the opponent to
/// move, seen from the opponent (light to move again).
#[inline]
fn twin(rules: &RuleSet, position: &Position) -> Position {
    rules.pass(position).flipped()
}

/// New values for a position `s` and its twin `t` (which reach each other
/// only by passing), solving their two equations together:
/// `V(s) = A + q (1 − V(t))`, `V(t) = A' + q' (1 − V(s))`.
#[inline]
fn joint(parts: (f64, f64), twin_parts: (f64, f64)) -> (f64, f64) {
    let ((a, q), (a2, q2)) = (parts, twin_parts);
    let v = (a + q * (1.0 - a2 - q2)) / (1.0 - q * q2);
    (v, a2 + q2 * (1.0 - v))
}

/// Why a solve could not be done.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The rule set has more positions than the solver indexes (2^31).
    #[error("{name} has {states} positions; the solver handles fewer than 2^31 (2,147,483,648)")]
    TooLarge {
        /// The rule set.
        name: String,
        /// Its position count.
        states: u64,
    },
    /// The memory budget does not hold the values and one candidate move
    /// per roll for the largest layer pair.
    #[error(
        "{name} needs at least {needed:.2} GiB (values and one recorded move per roll for the largest layer pair); the budget is {budget:.2} GiB"
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
}

/// Solves every position of `rules`. `progress` is called after each sweep
/// with the layer pair's scores, the sweep number and its largest change.
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
    mut progress: impl FnMut(&LayerReport),
) -> Result<Solution, SolveError> {
    let index = PositionIndex::new(rules);
    let n = index.len();
    // Successors are recorded as u32 indices with one flag bit.
    if n >= u64::from(SAME) {
        return Err(SolveError::TooLarge {
            name: rules.name().to_string(),
            states: n,
        });
    }
    let moving_rolls = Rolls::new(rules).moving.len();
    let p = rules.pieces();
    let pairs: Vec<(u8, u8)> = (0..p).flat_map(|a| (a..p).map(move |b| (a, b))).collect();
    // With checkpoints, the values no pair still to come reads are given
    // back to the kernel (and read back from the checkpoints at the end):
    // a pair reads only its own score diagonal and the one above it.
    let release = checkpoints.is_some();
    let diagonal = |total: u32| -> u64 {
        pairs
            .iter()
            .filter(|&&(a, b)| u32::from(a + b) == total)
            .map(|&pair| pair_states(&index, pair))
            .sum()
    };
    let unfinished: u64 = pairs.iter().map(|&pair| pair_states(&index, pair)).sum();
    let held = |(a, b): (u8, u8)| -> u64 {
        let total = u32::from(a + b);
        if release {
            n - unfinished + diagonal(total) + diagonal(total + 1)
        } else {
            n
        }
    };
    let least_needed = pairs
        .iter()
        .map(|&pair| {
            8 * held(pair) + pair_states(&index, pair) * Layout::NARROWEST.bytes(moving_rolls)
        })
        .max()
        .unwrap_or(0);
    if least_needed > options.memory {
        let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
        return Err(SolveError::Memory {
            name: rules.name().to_string(),
            needed: gib(least_needed),
            budget: gib(options.memory),
        });
    }
    let values = Values(crate::memory::zeroed(n as usize));
    let mut released = Vec::new();
    // Finished positions: the mover has borne off everything (1) or the opponent has (0).
    for (a, b, value) in (0..p).flat_map(|x| [(p, x, 1.0), (x, p, 0.0)]) {
        for i in index.layer_range(a, b) {
            values.set(i, value);
        }
    }
    let mut reports = Vec::new();
    let mut worst: f64 = 0.0;
    for total in (0..=2 * (p - 1)).rev() {
        if release {
            for &pair in pairs.iter().filter(|&&(a, b)| a + b == total + 2) {
                values
                    .of_pair(&index, pair)
                    .into_iter()
                    .for_each(crate::memory::release);
                released.push(pair);
            }
        }
        for &(a, b) in pairs.iter().filter(|&&(a, b)| a + b == total) {
            let saved = checkpoints.and_then(|dir| values.restore(dir, rules, &index, (a, b)));
            let report = if let Some(residual) = saved {
                LayerReport {
                    scores: (a, b),
                    states: pair_states(&index, (a, b)),
                    sweeps: 0,
                    choice_sweeps: 0,
                    bellman_passes: 0,
                    candidates: 0,
                    residual,
                    elapsed: Duration::ZERO,
                }
            } else {
                for layer in values.of_pair(&index, (a, b)) {
                    layer
                        .par_iter()
                        .for_each(|v| v.store(0.5f64.to_bits(), Ordering::Relaxed));
                }
                let held = held((a, b));
                let report =
                    solve_pair(rules, &index, &values, (a, b), held, options, &mut progress);
                if let Some(dir) = checkpoints {
                    crate::checkpoint::save(dir, rules, &index, (a, b), report.residual, |i| {
                        values.get(i)
                    })?;
                }
                report
            };
            worst = worst.max(report.residual);
            reports.push(report);
        }
    }
    if let Some(dir) = checkpoints {
        for &pair in &released {
            if values.restore(dir, rules, &index, pair).is_none() {
                return Err(SolveError::Checkpoint(std::io::Error::other(format!(
                    "the checkpoint of layers {pair:?} in {} could not be read back",
                    dir.display()
                ))));
            }
        }
    }
    Ok(Solution {
        index,
        values: values
            .0
            .into_iter()
            .map(|v| f64::from_bits(v.into_inner()))
            .collect(),
        layers: reports,
        residual: worst,
    })
}

/// Marks a recorded successor whose value counts as is (an extra roll);
/// without it the value counts as `1 − v` (the turn passed).
const SAME: u32 = 1 << 31;
/// An empty candidate slot; a roll whose first slot is empty passes.
const NONE: u32 = u32::MAX;

/// The dice as the sweeps see them: the rolls that can move (a roll of 0
/// never moves) with their probabilities, and the probability of the rest.
struct Rolls {
    moving: Vec<(u8, f64)>,
    still: f64,
}

impl Rolls {
    fn new(rules: &RuleSet) -> Rolls {
        Rolls {
            moving: rules
                .dice()
                .outcomes()
                .filter(|&(roll, _)| roll > 0)
                .collect(),
            still: rules
                .dice()
                .outcomes()
                .filter(|&(roll, _)| roll == 0)
                .map(|(_, p)| p)
                .sum(),
        }
    }
}

/// The moves a layer pair's sweeps consider, one block of the index each:
/// per twin pair `(i, j)` (a position and its twin across a pass; equal
/// when the twin is the position itself) the pair in `twins` and a
/// fixed-size record `[candidates of i…, candidates of j…]` in `records`,
/// where a position's candidates are, per moving roll, its `width` best
/// successors at the last Bellman pass, best first (an index, `| SAME` for
/// an extra roll; `NONE` where there are fewer moves). Finished positions
/// (wins and losses) are in the index with fixed values, so a bear-off or
/// a winning move is a successor like any other.
///
/// A block's twins, records and choices are its parts of three
/// allocations made once per layer pair: with one small allocation per
/// block, the allocator kept the freed memory of earlier pairs and the
/// 7-piece solves peaked 0.8 GB above the budget. The twins are apart from
/// the records so that the choices, which need them too, do not repeat
/// them (4 bytes per position: what lets sawah's largest pair keep its
/// choices).
struct Policy<'a> {
    twins: &'a mut [u32],
    records: &'a mut [u32],
    /// With more than one candidate per roll (when memory allows), the
    /// candidate each roll took at the last sweep over the candidates:
    /// records of one candidate per roll; empty otherwise.
    chosen: &'a mut [u32],
}

/// `data` cut into consecutive parts of `counts[k] * stride` elements.
fn split_into<'a>(mut data: &'a mut [u32], counts: &[usize], stride: usize) -> Vec<&'a mut [u32]> {
    counts
        .iter()
        .map(|&count| {
            let (part, rest) = std::mem::take(&mut data).split_at_mut(count * stride);
            data = rest;
            part
        })
        .collect()
}

/// The value a recorded successor is worth to the mover.
#[inline]
fn successor_value(values: &Values, successor: u32) -> f64 {
    let v = values.get(u64::from(successor & !SAME));
    if successor & SAME != 0 { v } else { 1.0 - v }
}

/// `(A, q)` of a position from its recorded candidates: `A` the
/// probability-weighted value of the best candidate of every roll that
/// moves, `q` the probability of passing.
///
/// With `chosen`, writes each roll's best candidate there (`NONE` for a
/// roll that passes).
#[inline]
fn policy_parts(
    candidates: &[u32],
    width: usize,
    rolls: &Rolls,
    values: &Values,
    mut chosen: Option<&mut [u32]>,
) -> (f64, f64) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    for (roll, (slots, &(_, p))) in candidates
        .chunks_exact(width)
        .zip(&rolls.moving)
        .enumerate()
    {
        if slots[0] == NONE {
            passing += p;
            if let Some(chosen) = chosen.as_deref_mut() {
                chosen[roll] = NONE;
            }
            continue;
        }
        let mut best = f64::NEG_INFINITY;
        let mut choice = slots[0];
        for &successor in slots.iter().take_while(|&&s| s != NONE) {
            let value = successor_value(values, successor);
            if value > best {
                best = value;
                choice = successor;
            }
        }
        if let Some(chosen) = chosen.as_deref_mut() {
            chosen[roll] = choice;
        }
        moving += p * best;
    }
    (moving, passing)
}

/// Every move of a twin pair in a Bellman pass, ranked and waiting for
/// its values: a pass ranks a few twin pairs ahead of the one it evaluates
/// and prefetches their successors' values, so that the cache misses of
/// several pairs overlap instead of coming one at a time.
#[derive(Default)]
struct PairMoves {
    i: u64,
    j: u64,
    /// The successors of `i`, then those of `j`, roll by roll (an index,
    /// `| SAME` for an extra roll).
    successors: Vec<u32>,
    /// Where each roll's successors start in `successors`, `i`'s moving
    /// rolls then `j`'s, and where the last one ends.
    bounds: Vec<usize>,
}

impl PairMoves {
    /// Generates and ranks every move of `position` (index `i`) and of its
    /// twin `other` (index `j`), and prefetches their successors' values.
    fn generate(
        &mut self,
        rules: &RuleSet,
        index: &PositionIndex,
        values: &Values,
        rolls: &Rolls,
        (i, position): (u64, &Position),
        (j, other): (u64, &Position),
    ) {
        (self.i, self.j) = (i, j);
        self.successors.clear();
        self.bounds.clear();
        self.bounds.push(0);
        for position in [position, other] {
            for &(roll, _) in &rolls.moving {
                for &mv in rules.legal_moves(position, roll).iter() {
                    let outcome = rules.apply(position, mv);
                    let successor = index.index(&outcome.position) as u32
                        | if outcome.extra_roll { SAME } else { 0 };
                    values.prefetch(u64::from(successor & !SAME));
                    self.successors.push(successor);
                }
                self.bounds.push(self.successors.len());
            }
        }
    }

    /// Each moving roll's successors of the position (`0`) or its twin (`1`).
    fn rolls(&self, which: usize) -> impl Iterator<Item = &[u32]> {
        let n = (self.bounds.len() - 1) / 2;
        self.bounds[which * n..=(which + 1) * n]
            .windows(2)
            .map(|bounds| &self.successors[bounds[0]..bounds[1]])
    }
}

/// How many twin pairs a Bellman pass ranks ahead of the one it evaluates.
const BELLMAN_AHEAD: usize = 2;

/// `(A, q)` of a position from every move of every roll (the Bellman
/// operator; `moves`, each roll's successors), writing each roll's `width`
/// best successors into `candidates`.
fn bellman_parts<'m>(
    moves: impl Iterator<Item = &'m [u32]>,
    values: &Values,
    rolls: &Rolls,
    candidates: &mut [u32],
    top: &mut Vec<(f64, u32)>,
) -> (f64, f64) {
    let width = candidates.len() / rolls.moving.len().max(1);
    let mut moving = 0.0;
    let mut passing = rolls.still;
    for ((&(_, p), slots), successors) in rolls
        .moving
        .iter()
        .zip(candidates.chunks_exact_mut(width))
        .zip(moves)
    {
        top.clear();
        for &successor in successors {
            let value = successor_value(values, successor);
            // Keep the `width` best, best first (ties: the first generated).
            let at = top
                .iter()
                .position(|&(v, _)| value > v)
                .unwrap_or(top.len());
            if at < width {
                top.insert(at, (value, successor));
                top.truncate(width);
            }
        }
        for (n, slot) in slots.iter_mut().enumerate() {
            *slot = top.get(n).map_or(NONE, |&(_, s)| s);
        }
        match top.first() {
            Some(&(value, _)) => moving += p * value,
            None => passing += p,
        }
    }
    (moving, passing)
}

/// How a layer pair's moves are recorded: the candidates per roll, and
/// whether each roll's choice among them is kept as well.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layout {
    width: usize,
    choices: bool,
}

impl Layout {
    /// The least a pair can be solved with: one candidate per roll (its own
    /// choice).
    const NARROWEST: Layout = Layout {
        width: 1,
        choices: false,
    };

    /// Bytes per position: half a twin pair's two indices, its candidate
    /// slots and, with the choices, one successor per roll.
    fn bytes(self, moving_rolls: usize) -> u64 {
        let choices = if self.choices { moving_rolls } else { 0 };
        4 + 4 * (moving_rolls * self.width + choices) as u64
    }

    /// The first layout that fits in `memory` bytes besides the values of
    /// `positions` held, for a layer pair of `states` positions, in this
    /// order: every move (which fits in `pieces` slots per roll: a move
    /// moves one piece, and pieces waiting to enter make one move) with the
    /// choices, every move, then the partial widths with the choices, widest
    /// first, then without. The choices come before a wider record because
    /// the sweeps over them read one value per roll (sawah's largest pair,
    /// where two candidates with the choices cost as much memory as three
    /// without: 456 s with them, 610 s with two and none; docs/solver.md).
    fn that_fits(
        positions: u64,
        states: u64,
        moving_rolls: usize,
        pieces: u8,
        memory: u64,
    ) -> Option<Layout> {
        let every = usize::from(pieces);
        let partial = || PARTIAL_WIDTHS.into_iter().filter(move |&w| w < every);
        [(every, true), (every, false)]
            .into_iter()
            // One candidate per roll is its own choice.
            .chain(partial().filter(|&w| w > 1).map(|w| (w, true)))
            .chain(partial().map(|w| (w, false)))
            .map(|(width, choices)| Layout { width, choices })
            .find(|layout| 8 * positions + states * layout.bytes(moving_rolls) <= memory)
    }
}

/// Positions in a layer pair (the layer and its mirror).
fn pair_states(index: &PositionIndex, pair: (u8, u8)) -> u64 {
    crate::checkpoint::pair_ranges(index, pair)
        .iter()
        .map(|r| r.end - r.start)
        .sum()
}

/// An in-place sweep over the twin pairs `twins` (`[i, j]` each) and their
/// policy records of `width` candidates per roll (`[candidates of i…,
/// candidates of j…]`); with `chosen`, also writes each roll's choice
/// there (records of one candidate per roll, for the cheaper sweeps that
/// follow). `update` sets a twin pair's new values when `write`, and
/// returns the larger change; the sweep returns the largest. Always
/// inlined, so that a constant `width` specialises it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep(
    twins: &[u32],
    records: &[u32],
    width: usize,
    chosen: Option<&mut [u32]>,
    rolls: &Rolls,
    values: &Values,
    update: &impl Fn(u64, u64, (f64, f64), (f64, f64), bool) -> f64,
    write: bool,
) -> f64 {
    let values_of = |parts: &[u32], chosen: Option<&mut [u32]>| {
        policy_parts(parts, width, rolls, values, chosen)
    };
    let moving_rolls = rolls.moving.len();
    let slots = moving_rolls * width;
    let mut chosen = chosen.map(|c| c.chunks_exact_mut(2 * moving_rolls));
    let mut largest = 0.0f64;
    let stride = 2 * slots;
    for (k, (pair, record)) in twins
        .chunks_exact(2)
        .zip(records.chunks_exact(stride))
        .enumerate()
    {
        // The values are read at random over the whole array: ask for those
        // of a record a few ahead, so that their cache misses overlap.
        let ahead = k + PREFETCH_AHEAD;
        if let (Some(upcoming_pair), Some(upcoming)) = (
            twins.get(2 * ahead..2 * ahead + 2),
            records.get(ahead * stride..(ahead + 1) * stride),
        ) {
            values.prefetch(u64::from(upcoming_pair[0]));
            values.prefetch(u64::from(upcoming_pair[1]));
            for &successor in upcoming.iter().filter(|&&s| s != NONE) {
                values.prefetch(u64::from(successor & !SAME));
            }
        }
        let (i, j) = (u64::from(pair[0]), u64::from(pair[1]));
        let (mine, theirs) = record.split_at(slots);
        let (parts, twin_parts) = match chosen.as_mut().and_then(Iterator::next) {
            Some(choice) => {
                let (my_choice, their_choice) = choice.split_at_mut(moving_rolls);
                (
                    values_of(mine, Some(my_choice)),
                    values_of(theirs, Some(their_choice)),
                )
            }
            None => (values_of(mine, None), values_of(theirs, None)),
        };
        largest = largest.max(update(i, j, parts, twin_parts, write));
    }
    largest
}

/// How many records ahead a sweep prefetches the values it will read.
const PREFETCH_AHEAD: usize = 8;

/// How far a policy is evaluated before it is improved again: until a
/// sweep changes no value by more than this fraction of the last Bellman
/// residual (or the tolerance, once that is larger).
const EVALUATION_RATIO: f64 = 1e-3;

/// With several candidates per roll, how far the candidates chosen by a
/// sweep over all of them are evaluated (by sweeps that read one candidate
/// per roll) before the candidates are compared again: until a sweep
/// changes no value by more than this fraction of that sweep's change.
/// Measured on masters-5 (docs/BENCHMARKS.md): 0.1 and 0.3 alike (79 s,
/// 82 s); with 0.01 the choices go stale (30% more sweeps, 9% slower).
const CHOICE_RATIO: f64 = 0.1;

/// Solves one layer pair by modified policy iteration. A Bellman pass
/// generates every move of every position and records the best successor
/// per roll; cheap in-place sweeps then evaluate that policy (reading one
/// value per roll); another Bellman pass, which only reads values, improves
/// the policy and measures `max |T(V) − V|`, until that is within tolerance.
fn solve_pair(
    rules: &RuleSet,
    index: &PositionIndex,
    values: &Values,
    (a, b): (u8, u8),
    held: u64,
    options: SolveOptions,
    progress: &mut impl FnMut(&LayerReport),
) -> LayerReport {
    let start = Instant::now();
    // Each position is updated together with its twin across a pass: for
    // a != b the twins of layer (a, b) are exactly layer (b, a); for a == b
    // both are in the layer, and the one with the smaller index does the work.
    let mut blocks = index.blocks(a, b);
    // The parallel loops below hand out one block at a time
    // (`with_max_len(1)`): rayon's default leaves a quarter of the blocks to
    // one thread, which then cannot share them (one core idle for seconds
    // at the end of a Bellman pass).
    // Sweep the furthest-along positions first, so that the successors of
    // non-capturing moves are mostly fresh from this very sweep: blocks by
    // stage, and inside a block from the end (a piece that moves on raises
    // its combination's rank).
    blocks.sort_by_key(|b| std::cmp::Reverse((b.stage(), b.start)));
    let states = pair_states(index, (a, b));
    let rolls = Rolls::new(rules);
    let Layout { width, choices } = Layout::that_fits(
        held,
        states,
        rolls.moving.len(),
        rules.pieces(),
        options.memory,
    )
    .unwrap_or(Layout::NARROWEST);
    // With every move recorded, sweeps apply the Bellman operator itself.
    let complete = width >= usize::from(rules.pieces());
    let slots = rolls.moving.len() * width;
    let choice_stride = 2 * rolls.moving.len();
    // Records are allocated at their exact size: one per twin pair, which
    // is every position of the block when the twins are in the mirror layer.
    let twin_pairs: Vec<usize> = blocks
        .par_iter()
        .map(|block| {
            if a == b {
                let mut count = 0usize;
                index.for_each_in_block(block, |i, position| {
                    if index.index(&twin(rules, position)) >= i {
                        count += 1;
                    }
                });
                count
            } else {
                block.len as usize
            }
        })
        .collect();
    let all_pairs: usize = twin_pairs.iter().sum();
    let stride = 2 * slots;
    // Written by the first Bellman pass (twins and records) and the first
    // sweep over the candidates (choices) before they are read.
    let mut twins = crate::memory::zeroed::<u32>(all_pairs * 2);
    let mut records = crate::memory::zeroed::<u32>(all_pairs * stride);
    let chosen_stride = if choices { choice_stride } else { 0 };
    let mut chosen = crate::memory::zeroed::<u32>(all_pairs * chosen_stride);
    let mut policies: Vec<Policy> = split_into(&mut twins, &twin_pairs, 2)
        .into_iter()
        .zip(split_into(&mut records, &twin_pairs, stride))
        .zip(split_into(&mut chosen, &twin_pairs, chosen_stride))
        .map(|((twins, records), chosen)| Policy {
            twins,
            records,
            chosen,
        })
        .collect();
    // New values for a twin pair; returns the larger change.
    let update = |i: u64, j: u64, parts: (f64, f64), twin_parts: (f64, f64), write: bool| {
        let (new, new_twin) = if j == i {
            // The twin is the position itself: V = A + q (1 - V).
            let v = (parts.0 + parts.1) / (1.0 + parts.1);
            (v, v)
        } else {
            joint(parts, twin_parts)
        };
        let (old, old_twin) = (values.get(i), values.get(j));
        let change = (new - old).abs().max((new_twin - old_twin).abs());
        if write {
            values.set(i, new);
            values.set(j, new_twin);
        }
        change
    };
    // A Bellman pass: every move of every roll; records the best ones.
    let improve = |policies: &mut [Policy], write: bool| -> f64 {
        blocks
            .par_iter()
            .zip(policies.par_iter_mut())
            .with_max_len(1)
            .map(|(block, policy)| {
                let mut records = policy
                    .twins
                    .chunks_exact_mut(2)
                    .zip(policy.records.chunks_exact_mut(stride));
                let mut best = vec![NONE; 2 * slots];
                let mut top = Vec::with_capacity(width + 1);
                let mut largest = 0.0f64;
                let mut finish = |moves: &PairMoves| {
                    let (mine, theirs) = best.split_at_mut(slots);
                    let parts = bellman_parts(moves.rolls(0), values, &rolls, mine, &mut top);
                    let twin_parts =
                        bellman_parts(moves.rolls(1), values, &rolls, theirs, &mut top);
                    let (i, j) = (moves.i, moves.j);
                    largest = largest.max(update(i, j, parts, twin_parts, write));
                    let (pair, record) = records
                        .next()
                        .expect("one record per twin pair, as counted when allocated");
                    pair.copy_from_slice(&[i as u32, j as u32]);
                    record.copy_from_slice(&best);
                };
                // Twin pairs ranked and prefetched, oldest first, and
                // finished ones to reuse.
                let mut waiting = std::collections::VecDeque::with_capacity(BELLMAN_AHEAD + 1);
                let mut spare: Vec<PairMoves> = Vec::new();
                index.for_each_in_block_rev(block, |i, position| {
                    let other = twin(rules, position);
                    let j = index.index(&other);
                    if j < i {
                        return;
                    }
                    let mut moves = spare.pop().unwrap_or_default();
                    moves.generate(rules, index, values, &rolls, (i, position), (j, &other));
                    waiting.push_back(moves);
                    if waiting.len() > BELLMAN_AHEAD
                        && let Some(moves) = waiting.pop_front()
                    {
                        finish(&moves);
                        spare.push(moves);
                    }
                });
                for moves in waiting {
                    finish(&moves);
                }
                largest
            })
            .reduce(|| 0.0, f64::max)
    };
    // A sweep over the recorded candidates (noting the choices, if kept,
    // when it writes).
    let evaluate = |policies: &mut [Policy], write: bool| -> f64 {
        policies
            .par_iter_mut()
            .with_max_len(1)
            .map(|policy| {
                let keep = write && !policy.chosen.is_empty();
                let chosen = keep.then_some(&mut *policy.chosen);
                sweep(
                    policy.twins,
                    policy.records,
                    width,
                    chosen,
                    &rolls,
                    values,
                    &update,
                    write,
                )
            })
            .reduce(|| 0.0, f64::max)
    };
    // A sweep that reads only the chosen candidates.
    let evaluate_choices = |policies: &[Policy]| -> f64 {
        policies
            .par_iter()
            .with_max_len(1)
            .map(|policy| {
                sweep(
                    policy.twins,
                    policy.chosen,
                    1,
                    None,
                    &rolls,
                    values,
                    &update,
                    true,
                )
            })
            .reduce(|| 0.0, f64::max)
    };
    let mut report = LayerReport {
        scores: (a, b),
        states,
        sweeps: 0,
        choice_sweeps: 0,
        bellman_passes: 0,
        candidates: width,
        residual: f64::INFINITY,
        elapsed: Duration::ZERO,
    };
    let mut note = |report: &mut LayerReport, residual: f64| {
        report.residual = residual;
        report.elapsed = start.elapsed();
        progress(report);
    };
    report.bellman_passes += 1;
    let mut residual = improve(&mut policies, true);
    note(&mut report, residual);
    while report.sweeps < options.max_sweeps {
        let target = if complete {
            options.tolerance
        } else {
            (residual * EVALUATION_RATIO).max(options.tolerance)
        };
        while report.sweeps < options.max_sweeps {
            let change = evaluate(&mut policies, true);
            report.sweeps += 1;
            note(&mut report, change);
            if change <= target {
                break;
            }
            // Sweeps over the choices just made are cheaper (one read per
            // roll); the next sweep over the candidates revises them.
            let inner = (change * CHOICE_RATIO).max(target);
            while choices && report.sweeps < options.max_sweeps {
                let change = evaluate_choices(&policies);
                report.sweeps += 1;
                report.choice_sweeps += 1;
                note(&mut report, change);
                if change <= inner {
                    break;
                }
            }
        }
        residual = if complete {
            report.sweeps += 1;
            evaluate(&mut policies, false)
        } else {
            report.bellman_passes += 1;
            improve(&mut policies, false)
        };
        note(&mut report, residual);
        if residual <= options.tolerance {
            break;
        }
    }
    report.elapsed = start.elapsed();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts for a pair of 100 positions beside 1,000 values held,
    /// 4 moving rolls and 7 pieces, with `bytes` per position to spare.
    fn layout_with(bytes: u64) -> Option<Layout> {
        Layout::that_fits(1_000, 100, 4, 7, 8 * 1_000 + 100 * bytes)
    }

    #[test]
    fn layouts_cost_their_twins_candidates_and_choices() {
        let layout = |width, choices| Layout { width, choices }.bytes(4);
        assert_eq!(layout(1, false), 4 + 16);
        assert_eq!(layout(2, true), 4 + 32 + 16);
        assert_eq!(layout(7, true), 4 + 112 + 16);
    }

    #[test]
    fn every_move_comes_first_then_the_choices_then_width() {
        let layout = |width, choices| Some(Layout { width, choices });
        assert_eq!(layout_with(132), layout(7, true));
        assert_eq!(layout_with(131), layout(7, false));
        assert_eq!(layout_with(116), layout(7, false));
        assert_eq!(layout_with(115), layout(4, true));
        assert_eq!(layout_with(84), layout(4, true));
        assert_eq!(layout_with(83), layout(3, true));
        // Two candidates with the choices and three without cost the same
        // (52 bytes): the choices win.
        assert_eq!(layout_with(52), layout(2, true));
        assert_eq!(layout_with(51), layout(2, false));
        assert_eq!(layout_with(36), layout(2, false));
        // One candidate is its own choice.
        assert_eq!(layout_with(35), layout(1, false));
        assert_eq!(layout_with(20), layout(1, false));
        assert_eq!(layout_with(19), None);
    }
}
