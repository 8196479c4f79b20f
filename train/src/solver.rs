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
use sawah_engine::Player;
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
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            tolerance: 1e-10,
            max_sweeps: 100_000,
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
    /// Gauss–Seidel sweeps made.
    pub sweeps: u32,
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
    let values = Values((0..n).map(|_| AtomicU64::new(0.5f64.to_bits())).collect());
    let p = rules.pieces();
    // Finished positions: the mover has borne off everything (1) or the opponent has (0).
    for (a, b, value) in (0..p).flat_map(|x| [(p, x, 1.0), (x, p, 0.0)]) {
        for i in index.layer_range(a, b) {
            values.set(i, value);
        }
    }
    let mut reports = Vec::new();
    let mut worst: f64 = 0.0;
    for total in (0..=2 * (p - 1)).rev() {
        for a in 0..p {
            let b = total as i32 - a as i32;
            if b < i32::from(a) || b >= i32::from(p) {
                continue;
            }
            let b = b as u8;
            let saved =
                checkpoints.and_then(|dir| crate::checkpoint::load(dir, rules, &index, (a, b)));
            let report = if let Some((saved, residual)) = saved {
                let all = crate::checkpoint::pair_ranges(&index, (a, b))
                    .into_iter()
                    .flatten();
                for (i, v) in all.zip(saved) {
                    values.set(i, v);
                }
                LayerReport {
                    scores: (a, b),
                    states: crate::checkpoint::pair_ranges(&index, (a, b))
                        .iter()
                        .map(|r| r.end - r.start)
                        .sum(),
                    sweeps: 0,
                    residual,
                    elapsed: Duration::ZERO,
                }
            } else {
                let report = solve_pair(rules, &index, &values, (a, b), options, &mut progress);
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

/// A position's successors, recorded once per layer pair so that sweeps
/// only read values: per roll, the best value among successors that are
/// already final (finished layers, wins) and the successors inside the pair
/// (`index | SAME` when the mover moves again, else the value is `1 − v`);
/// a roll with no legal move is marked `PASS`.
#[derive(Default)]
struct Records {
    /// `(i, j)`: a position and its twin (equal when the twin is itself).
    pairs: Vec<(u32, u32)>,
    /// Per position, per possible roll (in the dice's order): the best final
    /// value or `PASS`, and the end of its successors in `successors`.
    rolls: Vec<(f64, u32)>,
    successors: Vec<u32>,
}

/// Marks a successor whose value counts as is (an extra roll).
const SAME: u32 = 1 << 31;
/// Marks a roll with no legal move.
const PASS: f64 = -1.0;

/// Records the successors of `position` into `records`.
fn record(
    rules: &RuleSet,
    index: &PositionIndex,
    values: &Values,
    live: &[std::ops::Range<u64>],
    position: &Position,
    records: &mut Records,
) {
    for (roll, _) in rules.dice().outcomes() {
        let moves = rules.legal_moves(position, roll);
        if moves.is_empty() {
            records.rolls.push((PASS, records.successors.len() as u32));
            continue;
        }
        let mut best_final = 0.0f64;
        for &mv in moves.iter() {
            let outcome = rules.apply(position, mv);
            if outcome.position.side(Player::Light).scored() == rules.pieces() {
                best_final = 1.0;
                continue;
            }
            let k = index.index(&outcome.position);
            if live.iter().any(|r| r.contains(&k)) {
                records
                    .successors
                    .push(k as u32 | if outcome.extra_roll { SAME } else { 0 });
            } else {
                let v = values.get(k);
                best_final = best_final.max(if outcome.extra_roll { v } else { 1.0 - v });
            }
        }
        records
            .rolls
            .push((best_final, records.successors.len() as u32));
    }
}

/// `(A, q)` of a recorded position from the current values (see [`backup_parts`]).
#[inline]
fn recorded_parts(
    records: &Records,
    rolls: std::ops::Range<usize>,
    probabilities: &[f64],
    values: &Values,
) -> (f64, f64) {
    let mut moving = 0.0;
    let mut passing = 0.0;
    let mut from = if rolls.start == 0 {
        0
    } else {
        records.rolls[rolls.start - 1].1 as usize
    };
    for (&(best_final, end), &p) in records.rolls[rolls].iter().zip(probabilities) {
        let end = end as usize;
        if best_final == PASS {
            passing += p;
        } else {
            let mut best = best_final;
            for &k in &records.successors[from..end] {
                let v = values.get(u64::from(k & !SAME));
                best = best.max(if k & SAME != 0 { v } else { 1.0 - v });
            }
            moving += p * best;
        }
        from = end;
    }
    (moving, passing)
}

fn solve_pair(
    rules: &RuleSet,
    index: &PositionIndex,
    values: &Values,
    (a, b): (u8, u8),
    options: SolveOptions,
    progress: &mut impl FnMut(&LayerReport),
) -> LayerReport {
    let start = Instant::now();
    // Each position is updated together with its twin across a pass: for
    // a != b the twins of layer (a, b) are exactly layer (b, a); for a == b
    // both are in the layer, and the one with the smaller index does the work.
    let mut blocks = index.blocks(a, b);
    // Sweep the furthest-along positions first, so that the successors of
    // non-capturing moves are mostly fresh from this very sweep: blocks by
    // stage, and inside a block from the end (a piece that moves on raises
    // its combination's rank).
    blocks.sort_by_key(|b| std::cmp::Reverse((b.stage(), b.start)));
    let states: u64 = blocks.iter().map(|b| b.len).sum::<u64>() * if a == b { 1 } else { 2 };
    let live = [index.layer_range(a, b), index.layer_range(b, a)];
    let probabilities: Vec<f64> = rules.dice().outcomes().map(|(_, p)| p).collect();
    let rolls_per_position = probabilities.len();
    let records: Vec<Records> = blocks
        .par_iter()
        .map(|block| {
            let mut records = Records::default();
            index.for_each_in_block_rev(block, |i, position| {
                let other = twin(rules, position);
                let j = index.index(&other);
                if j < i {
                    return;
                }
                records.pairs.push((i as u32, j as u32));
                record(rules, index, values, &live, position, &mut records);
                record(rules, index, values, &live, &other, &mut records);
            });
            records
        })
        .collect();
    let update = |i: u64, j: u64, parts: (f64, f64), twin_parts: (f64, f64), write: bool| -> f64 {
        let (new, new_twin) = if j == i {
            // The twin is the position itself: V = A + q (1 - V).
            let v = (parts.0 + parts.1) / (1.0 + parts.1);
            (v, v)
        } else {
            joint(parts, twin_parts)
        };
        let change = (new - values.get(i))
            .abs()
            .max((new_twin - values.get(j)).abs());
        if write {
            values.set(i, new);
            values.set(j, new_twin);
        }
        change
    };
    let pass = |write: bool| -> f64 {
        records
            .par_iter()
            .map(|records| {
                let mut largest = 0.0f64;
                for (n, &(i, j)) in records.pairs.iter().enumerate() {
                    let (i, j) = (u64::from(i), u64::from(j));
                    let first = 2 * n * rolls_per_position;
                    let parts = recorded_parts(
                        records,
                        first..first + rolls_per_position,
                        &probabilities,
                        values,
                    );
                    let second = first + rolls_per_position;
                    let twin_parts = recorded_parts(
                        records,
                        second..second + rolls_per_position,
                        &probabilities,
                        values,
                    );
                    largest = largest.max(update(i, j, parts, twin_parts, write));
                }
                largest
            })
            .reduce(|| 0.0, f64::max)
    };
    let mut report = LayerReport {
        scores: (a, b),
        states,
        sweeps: 0,
        residual: f64::INFINITY,
        elapsed: Duration::ZERO,
    };
    while report.sweeps < options.max_sweeps {
        let change = pass(true);
        report.sweeps += 1;
        report.elapsed = start.elapsed();
        report.residual = change;
        progress(&report);
        if change <= options.tolerance {
            let residual = pass(false);
            report.residual = residual;
            if residual <= options.tolerance {
                break;
            }
        }
    }
    report.elapsed = start.elapsed();
    report
}
