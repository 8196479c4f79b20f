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

pub use crate::memory::peak_resident_bytes;

use crate::extrapolation;
use crate::record::{INDEX, LAST, NONE, SAME};
use rayon::prelude::*;
use sawah_engine::race::{Block, MAX_PIECES, Position, PositionIndex, RuleSet};
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
const PARTIAL_WIDTHS: [usize; 4] = [4, 3, 2, 1];

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
    pub scores: (u8, u8),
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

/// What a position's first estimate reads: the same position with the
/// opponent's most advanced piece borne off (worse for the mover) and with
/// the mover's (better), both one score higher and so already solved, and
/// how far each of those pieces was from bearing off. The estimate lies
/// between the two, nearer the one whose piece was nearer home: a pair
/// then starts far closer to its solution than from 0.5 everywhere, which
/// matters most where few candidates are recorded, because the first
/// Bellman pass picks them by these values (docs/solver.md).
struct Bounds {
    worse: u64,
    better: u64,
    /// The weight of `better`: the mover's leader's distance from bearing
    /// off against the opponent's (the nearer, the closer to `better`).
    toward_better: f64,
}

/// Positions whose estimates are read together (see [`set_first_estimates`]).
const ESTIMATE_BATCH: usize = 32;

impl Bounds {
    /// The bounds of an unfinished position.
    fn of(rules: &RuleSet, index: &PositionIndex, position: &Position) -> Bounds {
        let mover = position.turn();
        let off = u32::from(rules.route_len()) + 1;
        // The pips the most advanced piece of a side still has to go.
        let distance = |player| {
            let leader = position.side(player).leader().unwrap_or(0);
            f64::from(off - u32::from(leader))
        };
        // Both sides have a piece left in an unfinished position.
        let rank = |player| {
            position
                .with_leader_borne_off(player)
                .map_or(0, |next| index.index(&next))
        };
        let (mine, theirs) = (distance(mover), distance(!mover));
        Bounds {
            worse: rank(!mover),
            better: rank(mover),
            toward_better: theirs / (mine + theirs),
        }
    }

    /// Asks the cache for the two values the estimate reads.
    fn prefetch(&self, values: &Values) {
        values.prefetch(self.worse);
        values.prefetch(self.better);
    }

    /// The estimate from the solved values.
    fn estimate(&self, values: &Values) -> f64 {
        let (worse, better) = (values.get(self.worse), values.get(self.better));
        worse + self.toward_better * (better - worse)
    }
}

/// Sets the values of the positions of `blocks` (a layer pair about to be
/// solved) to their first estimates ([`Bounds`]).
fn set_first_estimates(rules: &RuleSet, index: &PositionIndex, values: &Values, blocks: &[Block]) {
    blocks.par_iter().with_max_len(1).for_each(|block| {
        // In batches: the values read lie at random, and asking for a
        // batch's before reading any lets their cache misses overlap.
        let mut batch = Vec::with_capacity(ESTIMATE_BATCH);
        let flush = |batch: &mut Vec<(u64, Bounds)>| {
            for (i, bounds) in batch.drain(..) {
                values.set(i, bounds.estimate(values));
            }
        };
        index.for_each_in_block(block, |i, position| {
            let bounds = Bounds::of(rules, index, position);
            bounds.prefetch(values);
            batch.push((i, bounds));
            if batch.len() == ESTIMATE_BATCH {
                flush(&mut batch);
            }
        });
        flush(&mut batch);
    });
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
    // Successors are recorded as u32 indices with two flag bits.
    if n >= crate::record::MAX_POSITIONS {
        return Err(SolveError::TooLarge {
            name: rules.name().to_string(),
            states: n,
        });
    }
    let rolls = Rolls::new(rules);
    let moving_rolls = rolls.moving.len();
    let p = rules.pieces();
    let pairs = layer_pairs(p);
    // With checkpoints, the values no pair still to come reads are given
    // back to the kernel (and read back from the checkpoints at the end).
    let release = checkpoints.is_some();
    let held = |pair| held_values(&index, p, pair, release);
    let least_needed = pairs
        .iter()
        .map(|&pair| {
            8 * held(pair) + Layout::NARROWEST.bytes(pair_states(&index, pair), 0, moving_rolls, p)
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
    // Each pair's record layout (in the order of `pairs`), and the memory
    // for the largest pair's records, reserved once (address space only
    // until written).
    let layouts: Vec<Layout> = pairs
        .iter()
        .map(|&pair| {
            let words = packed_words_estimate(rules, &index, &rolls, pair, SAMPLE_STEP);
            let shape = (pair_states(&index, pair), words);
            Layout::that_fits(held(pair), shape, moving_rolls, p, options.memory)
                .unwrap_or(Layout::NARROWEST)
        })
        .collect();
    let mut policy_memory =
        PolicyMemory::reserve(pairs.iter().zip(&layouts).map(|(&(a, b), layout)| {
            // At most one twin pair per position of the layer (a != b: exactly).
            let range = index.layer_range(a, b);
            let twin_pairs = (range.end - range.start) as usize;
            layout.per_twin_pair(moving_rolls, p).times(twin_pairs)
        }));
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
        for (&(a, b), &layout) in pairs
            .iter()
            .zip(&layouts)
            .filter(|(pair, _)| pair.0 + pair.1 == total)
        {
            let saved = checkpoints.and_then(|dir| values.restore(dir, rules, &index, (a, b)));
            let report = if let Some(residual) = saved {
                LayerReport {
                    scores: (a, b),
                    states: pair_states(&index, (a, b)),
                    sweeps: 0,
                    choice_sweeps: 0,
                    read_in_full: 0.0,
                    bellman_passes: 0,
                    generated_passes: 0.0,
                    extrapolations: 0,
                    candidates: 0,
                    residual,
                    elapsed: Duration::ZERO,
                }
            } else {
                let report = solve_pair(
                    rules,
                    &index,
                    &values,
                    (a, b),
                    layout,
                    &mut policy_memory,
                    options,
                    &mut progress,
                );
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
    // The records go before the released values come back, so that the two
    // are not held at once.
    drop(policy_memory);
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
/// record `[candidates of i…, candidates of j…]` in `records`, where a
/// position's candidates are, per moving roll, its `width` best successors
/// at the last Bellman pass, best first (`crate::record`: an index, `|
/// SAME` for an extra roll, the roll's last marked; a single `NONE` for a
/// roll that passes). Records of every move are packed, one after the
/// other, with each twin pair's length in `lengths`; others sit at a fixed
/// stride (`2 × rolls × width` words), or, split (`Layout::split`), hold
/// each roll's candidates but its choice, which is in `chosen` (`2 ×
/// rolls × (width − 1)` words). Finished positions (wins and
/// losses) are in the index with fixed values, so a bear-off or a winning
/// move is a successor like any other.
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
    /// With packed records, each twin pair's record length in words;
    /// empty when the records sit at a fixed stride.
    lengths: &'a mut [u8],
    /// With more than one candidate per roll (when memory allows), the
    /// candidate each roll took at the last sweep over the candidates:
    /// records of one candidate per roll (split, one of the roll's
    /// candidates, not repeated in `records`); empty otherwise.
    chosen: &'a mut [u32],
    /// With fewer candidates than every move, each twin pair's margin
    /// (`margins`): whether the next Bellman pass can take its candidates
    /// instead of generating its moves; empty otherwise.
    margins: &'a mut [u8],
    /// With the choices kept, each twin pair's choice margin
    /// (`ChoiceMargins`); empty otherwise.
    choice_margins: &'a mut [u8],
    /// With the choices kept, each position's change in the last sweep over
    /// the choices that recorded them (`extrapolation::encode`, `i` then
    /// `j`); empty otherwise.
    deltas: &'a mut [u8],
}

/// `data` cut into consecutive parts of `counts[k] * stride` elements.
fn split_into<'a, T>(mut data: &'a mut [T], counts: &[usize], stride: usize) -> Vec<&'a mut [T]> {
    counts
        .iter()
        .map(|&count| {
            let (part, rest) = std::mem::take(&mut data).split_at_mut(count * stride);
            data = rest;
            part
        })
        .collect()
}

/// The larger of two values, neither of them NaN (values, changes and
/// gaps never are): one `maxsd`, where `f64::max`, which also handles NaN,
/// takes three instructions more, in the sweeps' innermost loops.
#[inline(always)]
fn larger(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// The smaller of two values, neither of them NaN (see [`larger`]).
#[inline(always)]
fn smaller(a: f64, b: f64) -> f64 {
    if a < b { a } else { b }
}

/// The value a recorded successor is worth to the mover.
#[inline]
fn successor_value(values: &Values, successor: u32) -> f64 {
    let v = values.get(u64::from(successor & INDEX));
    if successor & SAME != 0 { v } else { 1.0 - v }
}

/// `(A, q)` of a position from its recorded candidates (the start of
/// `record`, `crate::record`'s layout): `A` the probability-weighted value
/// of the best candidate of every roll that moves, `q` the probability of
/// passing; the smallest gap, over the rolls, between the best candidate
/// and the next (infinite when no roll has two); and the words its rolls
/// took.
///
/// With `chosen`, writes each roll's best candidate there (`NONE` for a
/// roll that passes).
#[inline]
fn policy_parts(
    record: &[u32],
    rolls: &Rolls,
    values: &Values,
    mut chosen: Option<&mut [u32]>,
) -> ((f64, f64), f64, usize) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    let mut gap = f64::INFINITY;
    let mut at = 0;
    for (roll, &(_, p)) in rolls.moving.iter().enumerate() {
        let first = record[at];
        if first == NONE {
            at += 1;
            passing += p;
            if let Some(chosen) = chosen.as_deref_mut() {
                chosen[roll] = NONE;
            }
            continue;
        }
        let mut best = f64::NEG_INFINITY;
        let mut next = f64::NEG_INFINITY;
        let mut choice = first;
        loop {
            let successor = record[at];
            at += 1;
            let value = successor_value(values, successor);
            // Branch-free: the values come in no order, and a branch on
            // them is mispredicted about half the time.
            next = larger(next, smaller(value, best));
            if value > best {
                best = value;
                choice = successor;
            }
            if successor & LAST != 0 {
                break;
            }
        }
        if let Some(chosen) = chosen.as_deref_mut() {
            chosen[roll] = choice;
        }
        gap = smaller(gap, best - next);
        moving += p * best;
    }
    ((moving, passing), gap, at)
}

/// [`policy_parts`] for a split record (`Layout::split`): each roll's
/// choice in `chosen` (`NONE` for a roll that passes), its other
/// candidates in `record`. With `write`, a better candidate found in the
/// record is swapped with the choice (the mark of the roll's last
/// candidate stays where it is).
#[inline]
fn split_parts(
    chosen: &mut [u32],
    record: &mut [u32],
    rolls: &Rolls,
    values: &Values,
    write: bool,
) -> ((f64, f64), f64, usize) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    let mut gap = f64::INFINITY;
    let mut at = 0;
    for (choice, &(_, p)) in chosen.iter_mut().zip(&rolls.moving) {
        if *choice == NONE {
            // The roll passes: its record is one `NONE`.
            at += 1;
            passing += p;
            continue;
        }
        let mut best = successor_value(values, *choice);
        let mut next = f64::NEG_INFINITY;
        // Where in the record a better candidate is, if any.
        let mut better = usize::MAX;
        if record[at] == NONE {
            at += 1;
        } else {
            loop {
                let successor = record[at];
                let value = successor_value(values, successor);
                next = larger(next, smaller(value, best));
                if value > best {
                    best = value;
                    better = at;
                }
                at += 1;
                if successor & LAST != 0 {
                    break;
                }
            }
        }
        if write && better != usize::MAX {
            let found = record[better];
            record[better] = *choice | found & LAST;
            *choice = found & !LAST;
        }
        gap = smaller(gap, best - next);
        moving += p * best;
    }
    ((moving, passing), gap, at)
}

/// `(A, q)` of a position from each roll's chosen candidate (`choices`, one
/// per moving roll, `NONE` for a roll that passes): what [`policy_parts`]
/// gives with one candidate per roll, without looking for a best.
#[inline]
fn choice_parts(choices: &[u32], rolls: &Rolls, values: &Values) -> (f64, f64) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    for (&successor, &(_, p)) in choices.iter().zip(&rolls.moving) {
        if successor == NONE {
            passing += p;
        } else {
            moving += p * successor_value(values, successor);
        }
    }
    (moving, passing)
}

/// Every move of a twin pair in a Bellman pass, ranked and waiting for
/// its values: a pass ranks a few twin pairs ahead of the one it evaluates
/// and prefetches their successors' values, so that the cache misses of
/// several pairs overlap instead of coming one at a time. Or, for a pair
/// whose margin holds (`margins`), its recorded candidates, which then
/// stand for every move.
#[derive(Default)]
struct PairMoves {
    i: u64,
    j: u64,
    /// The twin pair's number in its block.
    record: usize,
    /// Where its record starts in the block's records, and its length in
    /// words.
    offset: usize,
    len: usize,
    /// Whether every move was generated (and the pair's margin can be
    /// measured), rather than the candidates taken.
    generated: bool,
    /// The successors of `i`, then those of `j`, roll by roll (an index,
    /// `| SAME` for an extra roll).
    successors: Vec<u32>,
    /// Where each roll's successors start in `successors`, `i`'s moving
    /// rolls then `j`'s, and where the last one ends.
    bounds: Vec<usize>,
}

impl PairMoves {
    /// Empties the moves for the twin pair `(i, j)`.
    fn start(&mut self, (i, j): (u64, u64), generated: bool) {
        (self.i, self.j, self.generated) = (i, j, generated);
        self.successors.clear();
        self.bounds.clear();
        self.bounds.push(0);
    }

    /// Generates and ranks every move of `position` (index `i`) and of its
    /// twin `other` (index `j`), and prefetches their successors' values.
    fn generate(
        &mut self,
        index: &PositionIndex,
        values: &Values,
        rolls: &Rolls,
        (i, position): (u64, &Position),
        (j, other): (u64, &Position),
    ) {
        self.start((i, j), true);
        for position in [position, other] {
            let successors = index.successors(position);
            for &(roll, _) in &rolls.moving {
                successors.for_roll(roll, |successor, extra_roll| {
                    values.prefetch(successor);
                    self.successors
                        .push(successor as u32 | if extra_roll { SAME } else { 0 });
                });
                self.bounds.push(self.successors.len());
            }
        }
    }

    /// Takes the twin pair `(i, j)`'s recorded candidates (`record`, both
    /// positions' `moving_rolls` rolls, and, split, each roll's choice in
    /// `first`) as its moves, and prefetches their values.
    fn take_candidates(
        &mut self,
        values: &Values,
        (i, j): (u64, u64),
        (record, first): (&[u32], Option<&[u32]>),
        moving_rolls: usize,
    ) {
        self.start((i, j), false);
        let mut firsts = first.unwrap_or(&[]).iter();
        crate::record::read(record, 2 * moving_rolls, |roll| {
            if let Some(&chosen) = firsts.next()
                && chosen != NONE
            {
                values.prefetch(u64::from(chosen & INDEX));
                self.successors.push(chosen);
            }
            for &successor in roll {
                values.prefetch(u64::from(successor & INDEX));
                // Ranked again by the pass, which marks the last anew.
                self.successors.push(successor & !LAST);
            }
            self.bounds.push(self.successors.len());
        });
    }

    /// The words the twin pair's record takes: each roll's successors, at
    /// most `width` of them, or one word for a roll that passes.
    fn record_len(&self, width: usize) -> usize {
        self.bounds
            .windows(2)
            .map(|bounds| crate::record::roll_words((bounds[1] - bounds[0]).min(width)))
            .sum()
    }

    /// Each moving roll's successors of the position (`0`) or its twin (`1`).
    fn rolls(&self, which: usize) -> impl Iterator<Item = &[u32]> {
        let n = (self.bounds.len() - 1) / 2;
        self.bounds[which * n..=(which + 1) * n]
            .windows(2)
            .map(|bounds| &self.successors[bounds[0]..bounds[1]])
    }
}

/// How many successors' values a Bellman pass asks for ahead of the twin
/// pair it evaluates: about two pairs whose moves it generated (sawah's
/// positions have about 15 successors each), or more pairs whose few
/// candidates it took.
const BELLMAN_AHEAD: usize = 64;

/// `(A, q)` of a position from every move of every roll (the Bellman
/// operator; `moves`, each roll's successors), writing each roll's `width`
/// best successors into `candidates`; and the smallest gap, over the
/// rolls, between the last of them and the best move left out (infinite
/// when no roll left one out).
fn bellman_parts<'m>(
    moves: impl Iterator<Item = &'m [u32]>,
    values: &Values,
    rolls: &Rolls,
    candidates: &mut [u32],
) -> ((f64, f64), f64) {
    let width = candidates.len() / rolls.moving.len().max(1);
    let mut moving = 0.0;
    let mut passing = rolls.still;
    let mut gap = f64::INFINITY;
    for ((&(_, p), slots), successors) in rolls
        .moving
        .iter()
        .zip(candidates.chunks_exact_mut(width))
        .zip(moves)
    {
        if successors.is_empty() {
            slots.fill(NONE);
            passing += p;
        } else if successors.len() <= width {
            // Every move is kept: only the best need be found (for the
            // value and the choice, first), not an order.
            moving += p * best_first(successors, values, slots);
        } else {
            let top = best_successors(successors, values, width);
            for (slot, &(_, successor)) in slots.iter_mut().zip(&top) {
                *slot = successor;
            }
            gap = smaller(gap, top[width - 1].0 - top[width].0);
            moving += p * top[0].0;
        }
    }
    ((moving, passing), gap)
}

/// Writes a roll's `successors` (at least one, at most `slots.len()`) into
/// `slots`, the best by its value first (ties: the first generated) and
/// the rest in any order, `NONE`-padded; returns the best value. No
/// branch on the values but the one kept for the best's place, which the
/// compiler makes a conditional move.
#[inline]
fn best_first(successors: &[u32], values: &Values, slots: &mut [u32]) -> f64 {
    let (mut best, mut at) = (f64::NEG_INFINITY, 0);
    for (n, &successor) in successors.iter().enumerate() {
        let value = successor_value(values, successor);
        slots[n] = successor;
        (best, at) = if value > best { (value, n) } else { (best, at) };
    }
    slots[successors.len()..].fill(NONE);
    slots.swap(0, at);
    best
}

/// The `width` best of a roll's `successors` (more than `width` of them)
/// by their values and the best one left out, best first (ties: the
/// first generated first). An insertion from the end into a small array
/// on the stack: a roll has a few moves (3.5 on average in sawah), and a
/// growing vector, searched from the front and shifted by `memmove`, took
/// a quarter of a first Bellman pass.
#[inline]
fn best_successors(
    successors: &[u32],
    values: &Values,
    width: usize,
) -> [(f64, u32); MAX_PIECES as usize + 1] {
    let mut top = [(f64::NEG_INFINITY, NONE); MAX_PIECES as usize + 1];
    let mut kept = 0;
    for &successor in successors {
        let value = successor_value(values, successor);
        let mut at = if kept <= width {
            kept += 1;
            kept - 1
        } else if value > top[width].0 {
            width
        } else {
            continue;
        };
        while at > 0 && value > top[at - 1].0 {
            top[at] = top[at - 1];
            at -= 1;
        }
        top[at] = (value, successor);
    }
    top
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

    /// Whether `width` holds every move of `pieces` (a move moves one
    /// piece, and pieces waiting to enter make one move): then sweeps
    /// apply the Bellman operator itself and no margin is needed.
    fn every_move(self, pieces: u8) -> bool {
        self.width >= usize::from(pieces)
    }

    /// One twin pair's (two positions') parts of the policy: its two
    /// indices, both positions' candidate slots and, with the choices, one
    /// successor per roll each, the choice margin (one byte) and both
    /// positions' recorded changes (a byte each); with fewer candidates
    /// than every move of `pieces`, its margin (one byte). Split (a few
    /// candidates with the choices), a roll's choice is one of its
    /// candidates, so its record has a slot fewer.
    fn per_twin_pair(self, moving_rolls: usize, pieces: u8) -> PolicySizes {
        let choices = usize::from(self.choices);
        let slots = self.width - usize::from(self.split(pieces));
        PolicySizes {
            twins: 2,
            records: 2 * moving_rolls * slots,
            lengths: usize::from(self.packed(moving_rolls, pieces)),
            chosen: 2 * moving_rolls * choices,
            margins: usize::from(!self.every_move(pieces)),
            choice_margins: choices,
            deltas: 2 * choices,
        }
    }

    /// Whether each roll's choice is one of its candidates, the record
    /// holding the others (with the choices, for fewer candidates than
    /// every move): the sweeps over the choices read the choices alone
    /// either way, and the choices then cost no memory of their own. With
    /// the choices in the records instead (the first of each roll's slots),
    /// the sweeps over the choices streamed the whole records, and sawah's
    /// largest pair at three candidates took 1.9 s per sweep over the
    /// choices against 1.35 s with them apart (docs/solver.md). Records of
    /// every move keep them apart: a packed roll has no fixed place.
    fn split(self, pieces: u8) -> bool {
        self.choices && !self.every_move(pieces)
    }

    /// Whether the records are packed (`crate::record`): with every move,
    /// when a twin pair's record length fits in its byte.
    fn packed(self, moving_rolls: usize, pieces: u8) -> bool {
        self.every_move(pieces) && 2 * moving_rolls * self.width <= usize::from(u8::MAX)
    }

    /// Bytes for a layer pair of `states` positions (taking a twin pair per
    /// two positions; a position that is its own twin has a pair to itself,
    /// and such positions are few) whose records of every move, packed,
    /// take `packed_words`.
    fn bytes(self, states: u64, packed_words: u64, moving_rolls: usize, pieces: u8) -> u64 {
        let per_pair = self.per_twin_pair(moving_rolls, pieces);
        if self.packed(moving_rolls, pieces) {
            let besides = PolicySizes {
                records: 0,
                ..per_pair
            };
            states * besides.bytes() / 2 + 4 * packed_words
        } else {
            states * per_pair.bytes() / 2
        }
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
        (states, packed_words): (u64, u64),
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
            .find(|layout| {
                8 * positions + layout.bytes(states, packed_words, moving_rolls, pieces) <= memory
            })
    }
}

/// How long each part of a policy is (see [`Policy`]), in elements: the
/// twins, records and choices are `u32`, the lengths and margins bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct PolicySizes {
    twins: usize,
    records: usize,
    lengths: usize,
    chosen: usize,
    margins: usize,
    choice_margins: usize,
    deltas: usize,
}

impl PolicySizes {
    /// The parts of `count` of these.
    fn times(self, count: usize) -> PolicySizes {
        PolicySizes {
            twins: self.twins * count,
            records: self.records * count,
            lengths: self.lengths * count,
            chosen: self.chosen * count,
            margins: self.margins * count,
            choice_margins: self.choice_margins * count,
            deltas: self.deltas * count,
        }
    }

    /// The bytes of all the parts.
    fn bytes(self) -> u64 {
        let words = self.twins + self.records + self.chosen;
        (4 * words + self.lengths + self.margins + self.choice_margins + self.deltas) as u64
    }
}

/// The memory the layer pairs' policies are recorded in: one allocation
/// per part, reserved once for the largest pair (address space only) and
/// used by each pair in turn. With an allocation per pair, each pair's
/// records were new memory, which the kernel zeroes on first write: in a
/// virtual machine of this project's kind that ran at 0.3–2 GB/s and took
/// 7% of masters-5's time. A pair gives back the pages beyond its own
/// parts ([`crate::memory::trim`]), so the process holds no more than
/// before: the values and the records of the pair being solved.
struct PolicyMemory {
    twins: Vec<u32>,
    records: Vec<u32>,
    lengths: Vec<u8>,
    chosen: Vec<u32>,
    margins: Vec<u8>,
    choice_margins: Vec<u8>,
    deltas: Vec<u8>,
}

impl PolicyMemory {
    /// Room for the largest of `sizes` in each part.
    fn reserve(sizes: impl Iterator<Item = PolicySizes>) -> PolicyMemory {
        let most = sizes.fold(PolicySizes::default(), |most, size| PolicySizes {
            twins: most.twins.max(size.twins),
            records: most.records.max(size.records),
            lengths: most.lengths.max(size.lengths),
            chosen: most.chosen.max(size.chosen),
            margins: most.margins.max(size.margins),
            choice_margins: most.choice_margins.max(size.choice_margins),
            deltas: most.deltas.max(size.deltas),
        });
        PolicyMemory {
            twins: crate::memory::zeroed(most.twins),
            records: crate::memory::zeroed(most.records),
            lengths: crate::memory::zeroed(most.lengths),
            chosen: crate::memory::zeroed(most.chosen),
            margins: crate::memory::zeroed(most.margins),
            choice_margins: crate::memory::zeroed(most.choice_margins),
            deltas: crate::memory::zeroed(most.deltas),
        }
    }

    /// The parts for a pair of `per_pair` per twin pair (at most those
    /// reserved), cut into its blocks' policies (`twin_pairs` in each, and
    /// `record_sizes` words of records), giving back the pages after them.
    /// The margins are zero (none measured); the twins, records, lengths,
    /// choices and changes hold whatever an earlier pair left, and
    /// a pair writes them before it reads them (the first Bellman pass
    /// generates every twin pair, its margins being zero; the first sweep
    /// over the candidates notes every choice, its choice margins being
    /// zero; a sweep records every change it extrapolates along).
    fn policies(
        &mut self,
        per_pair: PolicySizes,
        twin_pairs: &[usize],
        record_sizes: &[usize],
    ) -> Vec<Policy<'_>> {
        let sizes = PolicySizes {
            records: record_sizes.iter().sum(),
            ..per_pair.times(twin_pairs.iter().sum())
        };
        fn part<T: crate::memory::Zeroable>(data: &mut [T], len: usize) -> &mut [T] {
            crate::memory::trim(data, len);
            &mut data[..len]
        }
        let margins = part(&mut self.margins, sizes.margins);
        margins.fill(0);
        let choice_margins = part(&mut self.choice_margins, sizes.choice_margins);
        choice_margins.fill(0);
        let twins = part(&mut self.twins, sizes.twins);
        let records = part(&mut self.records, sizes.records);
        let lengths = part(&mut self.lengths, sizes.lengths);
        let chosen = part(&mut self.chosen, sizes.chosen);
        let deltas = part(&mut self.deltas, sizes.deltas);
        split_into(twins, twin_pairs, per_pair.twins)
            .into_iter()
            .zip(split_into(records, record_sizes, 1))
            .zip(split_into(lengths, twin_pairs, per_pair.lengths))
            .zip(split_into(chosen, twin_pairs, per_pair.chosen))
            .zip(split_into(margins, twin_pairs, per_pair.margins))
            .zip(split_into(
                choice_margins,
                twin_pairs,
                per_pair.choice_margins,
            ))
            .zip(split_into(deltas, twin_pairs, per_pair.deltas))
            .map(
                |((((((twins, records), lengths), chosen), margins), choice_margins), deltas)| {
                    Policy {
                        twins,
                        records,
                        lengths,
                        chosen,
                        margins,
                        choice_margins,
                        deltas,
                    }
                },
            )
            .collect()
    }
}

/// The layer pairs `(a, b)`, `a <= b`, of a rule set with `pieces` pieces.
fn layer_pairs(pieces: u8) -> Vec<(u8, u8)> {
    (0..pieces)
        .flat_map(|a| (a..pieces).map(move |b| (a, b)))
        .collect()
}

/// The values held while the layer pair `(a, b)` is solved: every
/// position's, or, when finished pairs are `released` (kept in their
/// checkpoints), the finished positions' and the two score diagonals the
/// pair reads (its own, `a + b`, and the one above).
fn held_values(index: &PositionIndex, pieces: u8, (a, b): (u8, u8), release: bool) -> u64 {
    if !release {
        return index.len();
    }
    let pairs = layer_pairs(pieces);
    let total = a + b;
    let unfinished: u64 = pairs.iter().map(|&pair| pair_states(index, pair)).sum();
    let diagonals: u64 = pairs
        .iter()
        .filter(|&&(a, b)| a + b == total || a + b == total + 1)
        .map(|&pair| pair_states(index, pair))
        .sum();
    index.len() - unfinished + diagonals
}

/// The words a position's record takes with at most `width` candidates
/// per roll (`crate::record`).
fn record_words(rules: &RuleSet, rolls: &Rolls, width: usize, position: &Position) -> usize {
    rolls
        .moving
        .iter()
        .map(|&(roll, _)| {
            let count = rules.move_count(position, roll) as usize;
            crate::record::roll_words(count.min(width))
        })
        .sum()
}

/// One position in how many a layout's memory estimate counts the moves of.
const SAMPLE_STEP: u64 = 61;

/// The words a layer pair's records take packed with every move, estimated
/// from every `step`-th position (each position's moves are in one twin
/// pair's record), with 1% to spare: what the memory plan counts for a
/// packed layout. The pair's records are then allocated at their exact
/// size, counted when it starts.
fn packed_words_estimate(
    rules: &RuleSet,
    index: &PositionIndex,
    rolls: &Rolls,
    pair: (u8, u8),
    step: u64,
) -> u64 {
    let width = usize::from(rules.pieces());
    // Every position whose index is a multiple of `step`, unranked inside
    // its block (unranking from the index alone searches for the block:
    // sawah's plan took 10 s that way).
    let sampled: u64 = pair_blocks(index, pair)
        .par_iter()
        .flat_map_iter(|block| {
            let first = block.start.div_ceil(step) * step - block.start;
            (first..block.len)
                .step_by(step as usize)
                .filter_map(|offset| index.position_in_block(block, offset))
        })
        .map(|position| record_words(rules, rolls, width, &position) as u64)
        .sum();
    sampled * step * 101 / 100
}

/// The blocks of a layer pair: the layer's, then its mirror's when that is
/// another layer.
fn pair_blocks(index: &PositionIndex, (a, b): (u8, u8)) -> Vec<Block> {
    let mut blocks = index.blocks(a, b);
    if a != b {
        blocks.extend(index.blocks(b, a));
    }
    blocks
}

/// Positions in a layer pair (the layer and its mirror).
fn pair_states(index: &PositionIndex, pair: (u8, u8)) -> u64 {
    crate::checkpoint::pair_ranges(index, pair)
        .iter()
        .map(|r| r.end - r.start)
        .sum()
}

/// Each twin pair's *choice margin* in a sweep over the candidates, when
/// the choices are kept: the smallest gap between a roll's chosen
/// candidate and the next best, as `margins` encodes it. While the values
/// have drifted by less than half of it since it was measured, the choices
/// are still the best candidates (the argument of `margins`, with the
/// runner-up in place of the best move left out), so the sweep reads only
/// the chosen candidate of such a pair's rolls: a sweep over every
/// candidate then costs little more than one over the choices once they
/// settle, and still computes `max |T(V) − V|` over every candidate.
struct ChoiceMargins<'a> {
    /// One byte per twin pair (0 after a Bellman pass: none measured).
    bytes: &'a mut [u8],
    /// Which bytes hold now (`margins::holding`).
    holding: &'a [bool; 256],
    /// The number this sweep records its margins with.
    epoch: usize,
}

impl ChoiceMargins<'_> {
    /// Whether twin pair `k`'s choices are still its best candidates.
    #[inline]
    fn hold(&self, k: usize) -> bool {
        self.bytes
            .get(k)
            .is_some_and(|&byte| self.holding[usize::from(byte)])
    }
}

/// An in-place sweep over the twin pairs `twins` (`[i, j]` each) and their
/// policy records (`[candidates of i…, candidates of j…]`, `Policy`'s
/// layout: packed, with each pair's length in `lengths`, or at `stride`
/// when `lengths` is empty). With `chosen` (each roll's choice, one candidate
/// per roll, for the cheaper sweeps that follow), a writing sweep also
/// writes each roll's choice there; with `margins` as well, a pair whose
/// choice margin holds is read from its choices alone, and a writing sweep
/// measures the others' margins anew. `update` sets a twin pair's new
/// values when `write`, and returns the larger change; the sweep returns
/// the largest, and how many twin pairs it read over every candidate.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep(
    twins: &[u32],
    records: &mut [u32],
    (lengths, stride): (&[u8], usize),
    (chosen, split): (Option<&mut [u32]>, bool),
    mut margins: Option<ChoiceMargins>,
    rolls: &Rolls,
    values: &Values,
    update: &impl Fn(u64, u64, (f64, f64), (f64, f64), bool) -> f64,
    write: bool,
) -> (f64, u64) {
    let moving_rolls = rolls.moving.len();
    let choice_stride = 2 * moving_rolls;
    let mut read_in_full = 0u64;
    let held = |margins: &Option<ChoiceMargins>, k| margins.as_ref().is_some_and(|m| m.hold(k));
    let mut chosen = chosen;
    let mut largest = 0.0f64;
    // Twin pair `k`'s record length, and where the records of this pair
    // and of the one `PREFETCH_AHEAD` on start.
    let len = |k: usize| lengths.get(k).map_or(stride, |&len| usize::from(len));
    let mut at = 0;
    let mut ahead_at: usize = (0..PREFETCH_AHEAD.min(twins.len() / 2)).map(len).sum();
    for (k, pair) in twins.chunks_exact(2).enumerate() {
        // Ask for the values of a pair a few ahead: from its choices alone
        // when its choice margin holds.
        let ahead = k + PREFETCH_AHEAD;
        if let Some(upcoming_pair) = twins.get(2 * ahead..2 * ahead + 2) {
            let ahead_len = len(ahead);
            let upcoming_choices = chosen
                .as_deref()
                .and_then(|c| c.get(ahead * choice_stride..(ahead + 1) * choice_stride));
            let upcoming_record = records.get(ahead_at..ahead_at + ahead_len);
            let held_ahead = held(&margins, ahead);
            // The choices, when the pair will be read from them alone or
            // they are its first candidates; its record, unless held.
            let (first, rest) = (
                upcoming_choices.filter(|_| held_ahead || split),
                upcoming_record.filter(|_| !held_ahead),
            );
            ahead_at += ahead_len;
            prefetch_pair(values, upcoming_pair, first.unwrap_or(&[]));
            prefetch_successors(values, rest.unwrap_or(&[]));
        }
        let record = &mut records[at..at + len(k)];
        at += record.len();
        let (i, j) = (u64::from(pair[0]), u64::from(pair[1]));
        let choice = chosen
            .as_deref_mut()
            .map(|c| &mut c[k * choice_stride..(k + 1) * choice_stride]);
        // Both positions' parts, and, when read over every candidate, the
        // smaller of their gaps (the twin pair's choice margin).
        let (parts, twin_parts, gap) = match choice {
            Some(choice) if held(&margins, k) => {
                let (mine, theirs) = choice.split_at(moving_rolls);
                (
                    choice_parts(mine, rolls, values),
                    choice_parts(theirs, rolls, values),
                    None,
                )
            }
            Some(choice) if split => {
                let (mine, theirs) = choice.split_at_mut(moving_rolls);
                let (parts, gap, used) = split_parts(mine, record, rolls, values, write);
                let (twin_parts, twin_gap, _) =
                    split_parts(theirs, &mut record[used..], rolls, values, write);
                (parts, twin_parts, Some(gap.min(twin_gap)))
            }
            choice => {
                let (mine, theirs) = match choice.filter(|_| write) {
                    Some(choice) => {
                        let (mine, theirs) = choice.split_at_mut(moving_rolls);
                        (Some(mine), Some(theirs))
                    }
                    None => (None, None),
                };
                let (parts, gap, used) = policy_parts(record, rolls, values, mine);
                let (twin_parts, twin_gap, _) =
                    policy_parts(&record[used..], rolls, values, theirs);
                (parts, twin_parts, Some(gap.min(twin_gap)))
            }
        };
        if let Some(gap) = gap {
            read_in_full += 1;
            if write && let Some(margins) = margins.as_mut() {
                margins.bytes[k] = crate::margins::encode(margins.epoch, gap);
            }
        }
        largest = larger(largest, update(i, j, parts, twin_parts, write));
    }
    (largest, read_in_full)
}

/// An in-place sweep over the twin pairs `twins` (`[i, j]` each) that reads
/// only each roll's chosen candidate (`chosen`: `[choices of i…, choices
/// of j…]`, one successor per moving roll, `NONE` for a roll that passes);
/// returns the largest change. The cheap sweep most sweeps are. With
/// `recording` (the changes, the scale, and whether to add to them),
/// also writes each position's change there (`extrapolation::encode` with
/// the scale given), or adds it to the change recorded there by the sweep
/// before.
fn sweep_choices(
    twins: &[u32],
    chosen: &[u32],
    rolls: &Rolls,
    values: &Values,
    update: &impl Fn(u64, u64, (f64, f64), (f64, f64), bool) -> f64,
    mut recording: Option<(&mut [u8], f64, bool)>,
) -> f64 {
    let moving_rolls = rolls.moving.len();
    let parts_of = |choices: &[u32]| choice_parts(choices, rolls, values);
    let stride = 2 * moving_rolls;
    let mut largest = 0.0f64;
    for (k, (pair, record)) in twins
        .chunks_exact(2)
        .zip(chosen.chunks_exact(stride))
        .enumerate()
    {
        let ahead = k + PREFETCH_AHEAD;
        if let (Some(upcoming_pair), Some(upcoming)) = (
            twins.get(2 * ahead..2 * ahead + 2),
            chosen.get(ahead * stride..(ahead + 1) * stride),
        ) {
            prefetch_pair(values, upcoming_pair, upcoming);
        }
        let (i, j) = (u64::from(pair[0]), u64::from(pair[1]));
        let (mine, theirs) = record.split_at(moving_rolls);
        let before = recording.is_some().then(|| (values.get(i), values.get(j)));
        largest = larger(
            largest,
            update(i, j, parts_of(mine), parts_of(theirs), true),
        );
        if let (Some((deltas, scale, add)), Some((old, old_twin))) = (recording.as_mut(), before) {
            for (delta, change) in deltas[2 * k..2 * k + 2]
                .iter_mut()
                .zip([values.get(i) - old, values.get(j) - old_twin])
            {
                let earlier = if *add {
                    extrapolation::decode(*delta, *scale)
                } else {
                    0.0
                };
                *delta = extrapolation::encode(earlier + change, *scale);
            }
        }
    }
    largest
}

/// Moves every position of `policies` by `factor` times the change its
/// last recording sweeps over the choices made (recorded with `scale`);
/// returns the largest move.
fn extrapolate(policies: &[Policy], values: &Values, factor: f64, scale: f64) -> f64 {
    policies
        .par_iter()
        .with_max_len(1)
        .map(|policy| {
            let mut largest = 0.0f64;
            for (pair, deltas) in policy
                .twins
                .chunks_exact(2)
                .zip(policy.deltas.chunks_exact(2))
            {
                // A position that is its own twin changed once.
                let count = if pair[0] == pair[1] { 1 } else { 2 };
                for (&position, &delta) in pair.iter().zip(deltas).take(count) {
                    let (position, change) = (
                        u64::from(position),
                        factor * extrapolation::decode(delta, scale),
                    );
                    values.set(position, values.get(position) + change);
                    largest = largest.max(change.abs());
                }
            }
            largest
        })
        .reduce(|| 0.0, f64::max)
}

/// Runs `work` on each of `items` on every thread of the pool, handing the
/// items out in order from one counter, and folds the results with
/// `combine` (from `R::default()`). The blocks of an in-place sweep are in
/// an order where each reads mostly values the blocks before it have just
/// written: handed out in order, the two threads sweep neighbouring blocks
/// and read little that is stale. With rayon's splitting (even one item per
/// task) the second thread takes the later half of the blocks from the
/// start, and reads the values of the first half before this sweep
/// reaches them (masters-5: 858 sweeps on two threads, 714 on one).
fn in_order<T: Send, R: Send + Default>(
    items: &mut [T],
    work: impl Fn(&mut T) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> R {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let cells: Vec<std::sync::Mutex<&mut T>> =
        items.iter_mut().map(std::sync::Mutex::new).collect();
    rayon::broadcast(|_| {
        let mut result = R::default();
        while let Some(cell) = cells.get(next.fetch_add(1, Ordering::Relaxed)) {
            // Each item is taken once, so the lock is never contended.
            let mut item = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            result = combine(result, work(&mut item));
        }
        result
    })
    .into_iter()
    .fold(R::default(), &combine)
}

/// How many records ahead a sweep prefetches the values it will read.
const PREFETCH_AHEAD: usize = 8;

/// Asks for the values a sweep will read for a twin pair (`[i, j]`) and
/// the successors it will look at (`NONE` slots skipped): the values are
/// read at random over the whole array, and asking a few pairs ahead lets
/// their cache misses overlap.
#[inline(always)]
fn prefetch_pair(values: &Values, pair: &[u32], successors: &[u32]) {
    values.prefetch(u64::from(pair[0]));
    values.prefetch(u64::from(pair[1]));
    prefetch_successors(values, successors);
}

/// Asks for the values of `successors` (`NONE` slots skipped).
#[inline(always)]
fn prefetch_successors(values: &Values, successors: &[u32]) {
    for &successor in successors.iter().filter(|&&s| s != NONE) {
        values.prefetch(u64::from(successor & INDEX));
    }
}

/// How far a policy is evaluated before it is improved again: until a
/// sweep changes no value by more than this fraction of the last Bellman
/// residual (or the tolerance, once that is within [`STRAIGHT_TO_TOLERANCE`]
/// times it).
const EVALUATION_RATIO: f64 = 1e-3;

/// While the last Bellman residual is above [`EARLY_RESIDUAL`], the policy
/// is still far from the best, and is evaluated only to this fraction of
/// it: the next pass finds as good a policy from values ten times rougher.
/// In sawah's largest pair, evaluated to 1/100 of every residual, passes
/// 2–4 found residuals of 0.024, 0.0033 and 3.7e-4 (to 1/1000: 0.024,
/// 0.0033, 4.1e-4) and came 55 s sooner, but pass 5 then found 3.1e-6
/// instead of 3.2e-7 and the pair needed a seventh pass (docs/solver.md).
const EARLY_EVALUATION_RATIO: f64 = 1e-2;

/// The Bellman residual above which [`EARLY_EVALUATION_RATIO`] applies.
const EARLY_RESIDUAL: f64 = 1e-3;

/// When the evaluation target is within this factor of the tolerance, the
/// policy is evaluated to the tolerance itself, so that the next Bellman
/// pass can end the pair: a pass that stops a few sweeps short only to
/// write, followed by one more that checks, costs more than those sweeps
/// (sawah's largest pair: a target of 2.2e-10 cost an extra pass).
const STRAIGHT_TO_TOLERANCE: f64 = 10.0;

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
#[allow(clippy::too_many_arguments)]
fn solve_pair(
    rules: &RuleSet,
    index: &PositionIndex,
    values: &Values,
    (a, b): (u8, u8),
    Layout { width, choices }: Layout,
    memory: &mut PolicyMemory,
    options: SolveOptions,
    progress: &mut impl FnMut(&LayerReport),
) -> LayerReport {
    let start = Instant::now();
    // Each position is updated together with its twin across a pass: for
    // a != b the twins of layer (a, b) are exactly layer (b, a); for a == b
    // both are in the layer, and the one with the smaller index does the work.
    let mut blocks = index.blocks(a, b);
    // The sweeps and passes below hand out one block at a time, in order
    // (`in_order`): rayon's default leaves a quarter of the blocks to one
    // thread, which then cannot share them (one core idle for seconds at
    // the end of a Bellman pass).
    // Sweep the furthest-along positions first, so that the successors of
    // non-capturing moves are mostly fresh from this very sweep: blocks by
    // stage, and inside a block from the end (a piece that moves on raises
    // its combination's rank).
    blocks.sort_by_key(|b| std::cmp::Reverse((b.stage(), b.start)));
    let states = pair_states(index, (a, b));
    let rolls = Rolls::new(rules);
    let layout = Layout { width, choices };
    // With every move recorded, sweeps apply the Bellman operator itself.
    let complete = layout.every_move(rules.pieces());
    let slots = rolls.moving.len() * width;
    // Each roll's choice is one of its candidates, the record holding the
    // others (`Layout::split`).
    let split = layout.split(rules.pieces());
    // Each twin pair's parts of the policy.
    let per_pair = layout.per_twin_pair(rolls.moving.len(), rules.pieces());
    let stride = per_pair.records;
    // Records are allocated at their exact size: one per twin pair, which
    // is every position of the block when the twins are in the mirror
    // layer, and, packed, the words its moves take.
    let packed = layout.packed(rolls.moving.len(), rules.pieces());
    let (twin_pairs, record_sizes): (Vec<usize>, Vec<usize>) = blocks
        .par_iter()
        .map(|block| {
            if a != b && !packed {
                return (block.len as usize, block.len as usize * stride);
            }
            let (mut count, mut words) = (0usize, 0usize);
            index.for_each_in_block(block, |i, position| {
                let other = twin(rules, position);
                if a == b && index.index(&other) < i {
                    return;
                }
                count += 1;
                if packed {
                    words += record_words(rules, &rolls, width, position)
                        + record_words(rules, &rolls, width, &other);
                }
            });
            (count, if packed { words } else { count * stride })
        })
        .unzip();
    let all_pairs: usize = twin_pairs.iter().sum();
    let mut policies = memory.policies(per_pair, &twin_pairs, &record_sizes);
    // After the records of the pair before were trimmed to this one's, so
    // that the two are not held at once.
    set_first_estimates(rules, index, values, &pair_blocks(index, (a, b)));
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
        let change = larger((new - old).abs(), (new_twin - old_twin).abs());
        if write {
            values.set(i, new);
            values.set(j, new_twin);
        }
        change
    };
    // A Bellman pass: every move of every roll; records the best ones and,
    // when it generated them, the pair's margin. `pass` numbers the passes
    // from 0; the later ones take the candidates of the pairs whose margins
    // hold (`holding`, by margin byte). Returns the largest change (or
    // residual, when it does not write) and how many twin pairs it generated.
    let improve = |policies: &mut [Policy], pass: usize, holding: &[bool; 256], write| {
        let mut items: Vec<(&Block, &mut Policy)> =
            blocks.iter().zip(policies.iter_mut()).collect();
        in_order(
            &mut items,
            |item| {
                let (block, policy) = (item.0, &mut *item.1);
                let Policy {
                    twins,
                    records,
                    lengths,
                    chosen,
                    margins,
                    ..
                } = policy;
                let mut best = vec![NONE; 2 * slots];
                // Split, each roll's candidates but the first (its choice):
                // a record's worth.
                let mut rest = vec![NONE; stride];
                let mut largest = 0.0f64;
                let mut generated = 0u64;
                let mut finish = |moves: &PairMoves,
                                  twins: &mut [u32],
                                  records: &mut [u32],
                                  chosen: &mut [u32],
                                  margins: &mut [u8]| {
                    let (mine, theirs) = best.split_at_mut(slots);
                    let (parts, gap) = bellman_parts(moves.rolls(0), values, &rolls, mine);
                    let (twin_parts, twin_gap) =
                        bellman_parts(moves.rolls(1), values, &rolls, theirs);
                    let (i, j) = (moves.i, moves.j);
                    largest = larger(largest, update(i, j, parts, twin_parts, write));
                    // Candidates taken stay as they are (only their order
                    // could change, and a sweep takes the best of them),
                    // unless split and a roll's best is no longer its
                    // choice; the twin pairs never change after the first
                    // pass.
                    let k = moves.record;
                    if pass == 0 {
                        twins[2 * k..2 * k + 2].copy_from_slice(&[i as u32, j as u32]);
                    }
                    if moves.generated
                        && let Some(margin) = margins.get_mut(k)
                    {
                        *margin = crate::margins::encode(pass, gap.min(twin_gap));
                    }
                    let choice_stride = per_pair.chosen;
                    let choices = &mut chosen[k * choice_stride..(k + 1) * choice_stride];
                    // Each roll's best candidate (first in `best`) is the
                    // choice a sweep over the candidates would make now,
                    // so the sweeps over the choices can start at once.
                    let best_first = best.chunks_exact(width).map(|slots| slots[0]);
                    // Candidates taken are rewritten only where split and a
                    // roll's best is no longer its choice.
                    let rewrite =
                        moves.generated || split && !choices.iter().copied().eq(best_first.clone());
                    if !rewrite {
                        return;
                    }
                    let record = &mut records[moves.offset..moves.offset + moves.len];
                    if split {
                        let others = best.chunks_exact(width).flat_map(|roll| &roll[1..]);
                        for (slot, &other) in rest.iter_mut().zip(others) {
                            *slot = other;
                        }
                        crate::record::write(&rest, width - 1, record);
                    } else {
                        crate::record::write(&best, width, record);
                    }
                    for (choice, best) in choices.iter_mut().zip(best_first) {
                        *choice = best;
                    }
                };
                // Twin pairs ranked and prefetched, oldest first, with the
                // number of their successors, and finished ones to reuse.
                let mut waiting = std::collections::VecDeque::new();
                let mut in_flight = 0;
                let mut spare: Vec<PairMoves> = Vec::new();
                // The next twin pair, in walking order (the records' order),
                // and where its record starts.
                let mut next = 0usize;
                let mut offset = 0usize;
                index.for_each_in_block_rev(block, |i, position| {
                    // The twin pair `position` starts, if any: in the first
                    // pass by ranking its twin (the one with the smaller
                    // index starts it); later ones walk the pairs the first
                    // recorded, in the same order.
                    let j = if pass == 0 {
                        index.index(&twin(rules, position))
                    } else {
                        match twins.get(2 * next..2 * next + 2) {
                            Some(&[first, second]) if u64::from(first) == i => u64::from(second),
                            _ => return,
                        }
                    };
                    if j < i {
                        return;
                    }
                    let mut moves = spare.pop().unwrap_or_default();
                    // The record's length: the stride, or, packed, as the
                    // first pass found it (the number of moves of a roll
                    // never changes).
                    let known_len = match lengths.get(next) {
                        None => Some(stride),
                        Some(_) if pass == 0 => None,
                        Some(&len) => Some(usize::from(len)),
                    };
                    let holds = margins.get(next).is_some_and(|&m| holding[usize::from(m)]);
                    match known_len {
                        Some(len) if holds => {
                            let record = &records[offset..offset + len];
                            let first = split.then(|| {
                                &chosen[next * per_pair.chosen..(next + 1) * per_pair.chosen]
                            });
                            moves.take_candidates(
                                values,
                                (i, j),
                                (record, first),
                                rolls.moving.len(),
                            );
                        }
                        _ => {
                            let other = twin(rules, position);
                            moves.generate(index, values, &rolls, (i, position), (j, &other));
                        }
                    }
                    let len = known_len.unwrap_or_else(|| moves.record_len(width));
                    if let Some(length) = lengths.get_mut(next) {
                        // At most 255: records are packed only then.
                        *length = len as u8;
                    }
                    generated += u64::from(moves.generated);
                    (moves.record, moves.offset, moves.len) = (next, offset, len);
                    next += 1;
                    offset += len;
                    in_flight += moves.successors.len();
                    waiting.push_back(moves);
                    while let Some(oldest) = waiting.front()
                        && in_flight - oldest.successors.len() >= BELLMAN_AHEAD
                        && let Some(moves) = waiting.pop_front()
                    {
                        in_flight -= moves.successors.len();
                        finish(&moves, twins, records, chosen, margins);
                        spare.push(moves);
                    }
                });
                for moves in waiting {
                    finish(&moves, twins, records, chosen, margins);
                }
                (largest, generated)
            },
            |x, y| (x.0.max(y.0), x.1 + y.1),
        )
    };
    // A sweep over the recorded candidates (noting the choices, if kept,
    // when it writes).
    // (`holding` and `epoch`: the choice margins that hold, and the number
    // a writing sweep records the ones it measures with.)
    let evaluate = |policies: &mut [Policy], write: bool, holding: &[bool; 256], epoch| {
        in_order(
            policies,
            |policy| {
                let chosen = (!policy.chosen.is_empty()).then_some(&mut *policy.chosen);
                let margins = (!policy.choice_margins.is_empty()).then_some(ChoiceMargins {
                    bytes: &mut *policy.choice_margins,
                    holding,
                    epoch,
                });
                sweep(
                    policy.twins,
                    policy.records,
                    (policy.lengths, stride),
                    (chosen, split),
                    margins,
                    &rolls,
                    values,
                    &update,
                    write,
                )
            },
            |x, y| (x.0.max(y.0), x.1 + y.1),
        )
    };
    // A sweep that reads only the chosen candidates.
    // (With `recording`, recording each position's change with its scale,
    // or adding it to the change recorded, `extrapolation`.)
    let evaluate_choices = |policies: &mut [Policy], recording: Option<(f64, bool)>| -> f64 {
        in_order(
            policies,
            |policy| {
                let recording = recording.map(|(scale, add)| (&mut *policy.deltas, scale, add));
                sweep_choices(
                    policy.twins,
                    policy.chosen,
                    &rolls,
                    values,
                    &update,
                    recording,
                )
            },
            f64::max,
        )
    };
    let mut report = LayerReport {
        scores: (a, b),
        states,
        sweeps: 0,
        choice_sweeps: 0,
        read_in_full: 0.0,
        bellman_passes: 0,
        generated_passes: 0.0,
        extrapolations: 0,
        candidates: width,
        residual: f64::INFINITY,
        elapsed: Duration::ZERO,
    };
    let mut note = |report: &mut LayerReport, residual: f64| {
        report.residual = residual;
        report.elapsed = start.elapsed();
        progress(report);
    };
    // The sum of every writing pass's and sweep's largest change: no value
    // has moved further than this since the pair started (what margins
    // are measured against), and its value at the start of each pass that
    // records margins.
    let mut drift = 0.0;
    let mut drift_at: Vec<f64> = Vec::new();
    let mut bellman =
        |policies: &mut [Policy], report: &mut LayerReport, drift: &mut f64, write| {
            let pass = report.bellman_passes as usize;
            if drift_at.len() <= crate::margins::LAST_PASS {
                drift_at.push(*drift);
            }
            let holding = crate::margins::holding(*drift, &drift_at);
            let (residual, generated) = improve(policies, pass, &holding, write);
            report.bellman_passes += 1;
            report.generated_passes += generated as f64 / all_pairs as f64;
            if write {
                *drift += residual;
            }
            residual
        };
    // The drift at the start of each sweep over the candidates since the
    // last Bellman pass (which changes the candidates, so that every choice
    // margin is measured anew after it).
    let mut choice_drift_at: Vec<f64> = Vec::new();
    let mut measured_after = 0;
    let mut over_candidates =
        |policies: &mut [Policy], report: &mut LayerReport, write: bool, drift: f64| {
            let passes = report.bellman_passes;
            if passes != measured_after {
                measured_after = passes;
                choice_drift_at.clear();
                policies
                    .par_iter_mut()
                    .for_each(|policy| policy.choice_margins.fill(0));
            }
            if write && choice_drift_at.len() <= crate::margins::LAST_PASS {
                choice_drift_at.push(drift);
            }
            let holding = crate::margins::holding(drift, &choice_drift_at);
            let epoch = choice_drift_at.len().saturating_sub(1);
            let (change, read_in_full) = evaluate(policies, write, &holding, epoch);
            report.sweeps += 1;
            report.read_in_full += read_in_full as f64 / all_pairs as f64;
            change
        };
    let mut residual = bellman(&mut policies, &mut report, &mut drift, true);
    note(&mut report, residual);
    // A Bellman pass notes each roll's best candidate as its choice, so
    // that, with the choices kept, it stands for the first sweep over the
    // candidates after it (one sweep over every candidate fewer per pass).
    let mut passed = choices;
    // Once the sweeps' changes since the last Bellman pass shrink by a
    // steady ratio (per sweep, or over two), the next one or two sweeps
    // over the choices record their changes, and if the ratio held, the
    // values are moved along them by the error left (`extrapolation`).
    let mut extrapolation = extrapolation::Extrapolation::new(options.extrapolate);
    while report.sweeps < options.max_sweeps {
        extrapolation.clear();
        let ratio = if residual > EARLY_RESIDUAL {
            EARLY_EVALUATION_RATIO
        } else {
            EVALUATION_RATIO
        };
        let target = residual * ratio;
        let target = if complete || target <= STRAIGHT_TO_TOLERANCE * options.tolerance {
            options.tolerance
        } else {
            target
        };
        'evaluation: while report.sweeps < options.max_sweeps {
            let change = if std::mem::take(&mut passed) {
                residual
            } else {
                let change = over_candidates(&mut policies, &mut report, true, drift);
                drift += change;
                extrapolation.note(change);
                note(&mut report, change);
                change
            };
            if change <= target {
                break;
            }
            // Sweeps over the choices just made are cheaper (one read per
            // roll); the next sweep over the candidates revises them.
            let inner = (change * CHOICE_RATIO).max(target);
            while choices && report.sweeps < options.max_sweeps {
                let change = evaluate_choices(&mut policies, extrapolation.recording());
                drift += change;
                report.sweeps += 1;
                report.choice_sweeps += 1;
                if let Some((factor, scale)) = extrapolation.after_sweep(change) {
                    drift += extrapolate(&policies, values, factor, scale);
                    report.extrapolations += 1;
                }
                note(&mut report, change);
                // Evaluated far enough: the pass below reads every
                // candidate (or move) and revises the choices, so a sweep
                // over the candidates first would only repeat it.
                if change <= target {
                    break 'evaluation;
                }
                if change <= inner {
                    break;
                }
            }
        }
        // Only a pass that reads can end the pair: one made before the
        // values were evaluated to the tolerance writes what it finds.
        let verify = target <= options.tolerance;
        residual = if complete {
            over_candidates(&mut policies, &mut report, false, drift)
        } else {
            passed = choices;
            bellman(&mut policies, &mut report, &mut drift, !verify)
        };
        note(&mut report, residual);
        if verify && residual <= options.tolerance {
            break;
        }
    }
    report.elapsed = start.elapsed();
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The best successors kept on the stack are the `width + 1` best
        /// of a stable sort by value, best first (ties: the first
        /// generated first), whatever the values and the flags; when every
        /// move fits, the first slot holds that sort's first and the
        /// others every other move.
        #[test]
        fn best_successors_are_the_best_of_a_stable_sort(
            // Few distinct values, so that ties are common.
            table in proptest::collection::vec(0u8..6, 16),
            successors in proptest::collection::vec((0u32..16, any::<bool>()), 0..=9),
            width in 1usize..=8,
        ) {
            let values = Values(
                table
                    .iter()
                    .map(|&v| AtomicU64::new((f64::from(v) / 8.0).to_bits()))
                    .collect(),
            );
            let words: Vec<u32> = successors
                .iter()
                .map(|&(i, same)| i | if same { SAME } else { 0 })
                .collect();
            let mut expected: Vec<(f64, u32)> = words
                .iter()
                .map(|&w| (successor_value(&values, w), w))
                .collect();
            expected.sort_by(|x, y| y.0.total_cmp(&x.0));
            expected.truncate(width + 1);
            if words.len() > width {
                let top = best_successors(&words, &values, width);
                prop_assert_eq!(&top[..=width], &expected[..]);
            } else if let Some(&(best, _)) = expected.first() {
                let mut slots = vec![0; width];
                prop_assert_eq!(best_first(&words, &values, &mut slots), best);
                prop_assert_eq!(slots[0], expected[0].1);
                let mut kept = slots[..words.len()].to_vec();
                kept.sort_unstable();
                let mut all = words.clone();
                all.sort_unstable();
                prop_assert_eq!(kept, all);
                prop_assert!(slots[words.len()..].iter().all(|&s| s == NONE));
            }
        }
    }

    /// The layouts for a pair of 100 positions (50 twin pairs) beside 1,000
    /// values held, 4 moving rolls and 7 pieces, with `bytes` per twin pair
    /// to spare, whose packed records of every move fill every slot.
    fn layout_with(bytes: u64) -> Option<Layout> {
        Layout::that_fits(1_000, (100, 50 * 56), 4, 7, 8 * 1_000 + 50 * bytes)
    }

    #[test]
    fn layouts_cost_their_twins_candidates_choices_and_margins() {
        // Bytes per twin pair (at most: packed records take fewer).
        let layout = |width, choices| Layout { width, choices }.per_twin_pair(4, 7).bytes();
        assert_eq!(layout(1, false), 8 + 32 + 1);
        // Margins for the candidates and for the choices, and a byte per
        // position for the changes extrapolated along; each roll's choice is
        // one of its candidates (split: the record holds the others).
        assert_eq!(layout(2, true), 8 + 32 + 32 + 2 + 2);
        // Every move needs no margin for its candidates.
        // (At most: packed, with a byte for the record's length, and the
        // choices apart, a word per roll.)
        assert_eq!(layout(7, true), 8 + 224 + 1 + 32 + 1 + 2);
        assert_eq!(Layout::NARROWEST.bytes(100, 0, 4, 7), 50 * 41);
        // Packed records of every move take the words counted, and a byte
        // per twin pair for their length.
        let every = Layout {
            width: 7,
            choices: true,
        };
        assert_eq!(
            every.bytes(100, 1_000, 4, 7),
            50 * (8 + 1 + 32 + 1 + 2) + 4_000
        );
    }

    /// Packed, every move fits where its records take no more than the
    /// partial widths' would.
    #[test]
    fn packed_records_of_every_move_fit_in_less() {
        // 50 twin pairs, each with 2 moves per roll (16 words).
        let fits =
            |bytes: u64| Layout::that_fits(1_000, (100, 50 * 16), 4, 7, 8 * 1_000 + 50 * bytes);
        let every = Layout {
            width: 7,
            choices: true,
        };
        assert_eq!(fits(8 + 1 + 64 + 32 + 1 + 2), Some(every));
        assert_ne!(fits(8 + 1 + 64 + 32 + 1 + 2 - 1), Some(every));
    }

    /// The memory plan of the 7-piece 16-square sets at the default budget
    /// (docs/solver.md): the largest pair gets three candidates with the
    /// choices, every other pair every move (packed) with the choices.
    #[test]
    fn sawah_layouts_at_the_default_budget() {
        let rules = sawah_engine::race::preset("sawah").expect("sawah is a preset");
        let index = PositionIndex::new(&rules);
        let rolls = Rolls::new(&rules);
        let budget = SolveOptions::default().memory;
        for pair in layer_pairs(rules.pieces()) {
            // A coarser sample than the solver's, for speed.
            let words = packed_words_estimate(&rules, &index, &rolls, pair, 4_099);
            let layout = Layout::that_fits(
                held_values(&index, rules.pieces(), pair, true),
                (pair_states(&index, pair), words),
                rolls.moving.len(),
                rules.pieces(),
                budget,
            );
            let width = match pair {
                (0, 1) => 3,
                _ => 7,
            };
            let expected = Layout {
                width,
                choices: true,
            };
            assert_eq!(layout, Some(expected), "layers {pair:?}");
        }
    }

    /// `in_order` on `threads` threads over 1,000 items: each item's value
    /// summed, and, per item, the thread that worked it and the order in
    /// which it was taken.
    fn run_in_order(threads: usize) -> (u64, Vec<(usize, usize)>) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let mut items: Vec<(u64, (usize, usize))> = (0..1000).map(|k| (k, (0, 0))).collect();
        let taken = std::sync::atomic::AtomicUsize::new(0);
        let sum = pool.install(|| {
            in_order(
                &mut items,
                |item| {
                    let thread = rayon::current_thread_index().unwrap_or(usize::MAX);
                    item.1 = (thread, taken.fetch_add(1, Ordering::Relaxed));
                    item.0
                },
                |x, y| x + y,
            )
        });
        (sum, items.into_iter().map(|(_, taken)| taken).collect())
    }

    #[test]
    fn in_order_works_each_item_once_and_hands_them_out_in_order() {
        // One thread takes them exactly in order.
        let (sum, taken) = run_in_order(1);
        assert_eq!(sum, 999 * 1000 / 2);
        for (k, &(_, at)) in taken.iter().enumerate() {
            assert_eq!(at, k, "item {k}");
        }
        // On three, each item is worked once, and each thread takes its
        // items in order. (How far apart two threads run depends on the
        // scheduler: a thread can be held up between taking an item and
        // noting it.)
        let (sum, taken) = run_in_order(3);
        assert_eq!(sum, 999 * 1000 / 2);
        let mut at: Vec<usize> = taken.iter().map(|&(_, at)| at).collect();
        at.sort_unstable();
        assert_eq!(at, (0..1000).collect::<Vec<_>>());
        for thread in 0..3 {
            let mine: Vec<usize> = taken
                .iter()
                .filter(|&&(t, _)| t == thread)
                .map(|&(_, at)| at)
                .collect();
            assert!(mine.is_sorted(), "thread {thread}: {mine:?}");
        }
    }

    /// `values` as the solver holds them.
    fn values_of(values: &[f64]) -> Values {
        Values(values.iter().map(|v| AtomicU64::new(v.to_bits())).collect())
    }

    /// The first estimates of every unfinished position of `masters-3`,
    /// from its solution's values one score higher, against 0.5: the mean
    /// error falls by more than half, and each estimate lies between its
    /// bounds.
    #[test]
    fn first_estimates_start_closer_to_the_solution_than_a_half() {
        let rules = sawah_engine::race::preset("masters-3").expect("masters-3 is a preset");
        let solution = solve(&rules, SolveOptions::default(), |_| {}).expect("solves");
        let index = &solution.index;
        let values = values_of(&solution.values);
        let (mut estimated, mut half, mut count) = (0.0, 0.0, 0u64);
        for (a, b) in layer_pairs(rules.pieces()) {
            for block in &pair_blocks(index, (a, b)) {
                index.for_each_in_block(block, |i, position| {
                    let bounds = Bounds::of(&rules, index, position);
                    let estimate = bounds.estimate(&values);
                    let (worse, better) = (values.get(bounds.worse), values.get(bounds.better));
                    assert!(worse.min(better) <= estimate && estimate <= worse.max(better));
                    let exact = values.get(i);
                    estimated += (estimate - exact).abs();
                    half += (0.5 - exact).abs();
                    count += 1;
                });
            }
        }
        let (estimated, half) = (estimated / count as f64, half / count as f64);
        assert!(
            estimated < half / 2.0,
            "mean error {estimated:.4} from the estimates, {half:.4} from 0.5"
        );
    }

    #[test]
    fn every_move_comes_first_then_the_choices_then_width() {
        let layout = |width, choices| Some(Layout { width, choices });
        // Packed records need a byte more per twin pair, for its length.
        assert_eq!(layout_with(268), layout(7, true));
        assert_eq!(layout_with(267), layout(7, false));
        assert_eq!(layout_with(233), layout(7, false));
        // Split, the choices cost only their margin and the changes.
        assert_eq!(layout_with(232), layout(4, true));
        assert_eq!(layout_with(140), layout(4, true));
        assert_eq!(layout_with(139), layout(3, true));
        assert_eq!(layout_with(108), layout(3, true));
        // Two candidates with the choices before three or four without.
        assert_eq!(layout_with(107), layout(2, true));
        assert_eq!(layout_with(76), layout(2, true));
        assert_eq!(layout_with(75), layout(2, false));
        assert_eq!(layout_with(73), layout(2, false));
        // One candidate is its own choice.
        assert_eq!(layout_with(72), layout(1, false));
        assert_eq!(layout_with(41), layout(1, false));
        assert_eq!(layout_with(40), None);
    }

    /// Each layout solves a layer pair to the same values: every move
    /// (packed, the choices apart), fewer candidates with the choices
    /// split from the records, and without the choices; from the pair's first
    /// estimates, the pairs above it solved.
    #[test]
    fn every_layout_solves_the_largest_pair_to_the_same_values() {
        let rules = sawah_engine::race::preset("masters-3").expect("masters-3 is a preset");
        let options = SolveOptions {
            tolerance: 1e-14,
            ..SolveOptions::default()
        };
        let solution = solve(&rules, options, |_| {}).expect("solves");
        let index = &solution.index;
        let pair = layer_pairs(rules.pieces())
            .into_iter()
            .max_by_key(|&pair| pair_states(index, pair))
            .expect("a pair");
        let ranges = crate::checkpoint::pair_ranges(index, pair);
        let rolls = Rolls::new(&rules);
        for (width, choices) in [(3, true), (2, true), (2, false), (1, false)] {
            let layout = Layout { width, choices };
            let values = values_of(&solution.values);
            // The pair's own values start over (from its first estimates).
            for i in ranges.iter().flat_map(|r| r.clone()) {
                values.set(i, 0.0);
            }
            let twin_pairs = (ranges[0].end - ranges[0].start) as usize;
            let mut memory = PolicyMemory::reserve(std::iter::once(
                layout
                    .per_twin_pair(rolls.moving.len(), rules.pieces())
                    .times(twin_pairs),
            ));
            let report = solve_pair(
                &rules,
                index,
                &values,
                pair,
                layout,
                &mut memory,
                options,
                &mut |_| {},
            );
            assert!(report.residual <= 1e-14, "{layout:?}: {report:?}");
            if width == 2 && choices {
                assert!(
                    report.choice_sweeps > 0 && report.bellman_passes > 1,
                    "{report:?}"
                );
            }
            let worst = ranges
                .iter()
                .flat_map(|r| r.clone())
                .map(|i| (values.get(i) - solution.values[i as usize]).abs())
                .fold(0.0, f64::max);
            assert!(worst <= 1e-12, "{layout:?}: differs by {worst:e}");
        }
    }
}
