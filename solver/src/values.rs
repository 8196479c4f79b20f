//! The value array shared between threads, twins, and the first estimates
//! of a layer pair from the solved pairs above it.

use rayon::prelude::*;
use sawah_engine::race::{Block, LayerPair, Position, PositionIndex, RuleSet};
use std::sync::atomic::{AtomicU64, Ordering};

/// The values being solved, shared between threads (f64 bits in atomics;
/// relaxed order: in-place iteration tolerates reading a neighbour's old value).
pub(crate) struct Values(pub(crate) Vec<AtomicU64>);

impl Values {
    #[inline]
    pub(crate) fn get(&self, i: u64) -> f64 {
        f64::from_bits(self.0[i as usize].load(Ordering::Relaxed))
    }
    #[inline]
    pub(crate) fn set(&self, i: u64, v: f64) {
        self.0[i as usize].store(v.to_bits(), Ordering::Relaxed);
    }
    /// The values of a layer pair, one slice per layer.
    pub(crate) fn of_pair(&self, index: &PositionIndex, pair: LayerPair) -> Vec<&[AtomicU64]> {
        index
            .pair_ranges(pair)
            .into_iter()
            .map(|range| &self.0[range.start as usize..range.end as usize])
            .collect()
    }
    /// Sets a layer pair's values from its checkpoint in `dir`; returns the
    /// residual it was saved with, or why there is no valid one (nothing set).
    pub(crate) fn restore(
        &self,
        dir: &std::path::Path,
        rules: &RuleSet,
        index: &PositionIndex,
        pair: LayerPair,
    ) -> Result<f64, crate::checkpoint::Ignored> {
        let (saved, residual) = crate::checkpoint::load(dir, rules, index, pair)?;
        let all = self.of_pair(index, pair).into_iter().flatten();
        for (value, v) in all.zip(saved) {
            value.store(v.to_bits(), Ordering::Relaxed);
        }
        Ok(residual)
    }
    /// Asks the cache for value `i` ahead of its use (a hint; no effect
    /// off x86-64 or past the end).
    #[inline]
    pub(crate) fn prefetch(&self, i: u64) {
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
pub(crate) fn twin(rules: &RuleSet, position: &Position) -> Position {
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
pub(crate) struct Bounds {
    pub(crate) worse: u64,
    pub(crate) better: u64,
    /// The weight of `better`: the mover's leader's distance from bearing
    /// off against the opponent's (the nearer, the closer to `better`).
    pub(crate) toward_better: f64,
}

/// Positions whose estimates are read together (see [`set_first_estimates`]).
pub(crate) const ESTIMATE_BATCH: usize = 32;

impl Bounds {
    /// The bounds of an unfinished position.
    pub(crate) fn of(rules: &RuleSet, index: &PositionIndex, position: &Position) -> Bounds {
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
    pub(crate) fn prefetch(&self, values: &Values) {
        values.prefetch(self.worse);
        values.prefetch(self.better);
    }

    /// The estimate from the solved values.
    pub(crate) fn estimate(&self, values: &Values) -> f64 {
        let (worse, better) = (values.get(self.worse), values.get(self.better));
        worse + self.toward_better * (better - worse)
    }
}

/// Sets the values of the positions of `blocks` (a layer pair about to be
/// solved) to their first estimates ([`Bounds`]).
pub(crate) fn set_first_estimates(
    rules: &RuleSet,
    index: &PositionIndex,
    values: &Values,
    blocks: &[Block],
) {
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
pub(crate) fn joint(parts: (f64, f64), twin_parts: (f64, f64)) -> (f64, f64) {
    let ((a, q), (a2, q2)) = (parts, twin_parts);
    let v = (a + q * (1.0 - a2 - q2)) / (1.0 - q * q2);
    (v, a2 + q2 * (1.0 - v))
}
