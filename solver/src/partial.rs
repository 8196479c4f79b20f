//! Which layers a partial solve takes: the largest set of late layers
//! (most pieces borne off) closed under play whose solve fits a memory
//! budget, for a rule set too large to solve whole in it (or at all:
//! past the 2^30 − 1 positions a solve can index).

use crate::record::MAX_POSITIONS;
use crate::solve::least_needed;
use sawah_engine::race::{LayerPair, LayerSet, PositionIndex, RuleSet};

/// The memory a solve of `layers` needs at least, in bytes: its values
/// (8 bytes a position; every one of them is held at the end) or the
/// solver's own least (values held while solving and one recorded
/// candidate per roll for the largest pair), whichever is more. `None`
/// when the layers hold too many positions for the solver to index.
pub fn memory_needed(rules: &RuleSet, layers: &LayerSet, release: bool) -> Option<u64> {
    let index = PositionIndex::of_layers(rules, layers);
    if index.len() >= MAX_POSITIONS {
        return None;
    }
    let solving = least_needed(rules, &index, layers.pairs(), release);
    Some(solving.max(8 * index.len()))
}

/// The largest set of late layers whose solve fits `memory` bytes: every
/// score diagonal from the highest down while the next still fits, then
/// as many pairs below them as fit, smallest first (each one a pair whose
/// moves lead only into the set). `None` when not even the last pair
/// (every piece but one of each side borne off) fits. With `release`, the
/// solve keeps checkpoints and holds two diagonals of values at a time
/// while solving.
pub fn largest_layers_within(rules: &RuleSet, memory: u64, release: bool) -> Option<LayerSet> {
    let p = rules.pieces();
    let fits = |set: &LayerSet| memory_needed(rules, set, release).is_some_and(|m| m <= memory);
    let mut best: Option<LayerSet> = None;
    for d in (0..=2 * (p - 1)).rev() {
        let candidate = LayerSet::from_diagonal(p, d);
        if !fits(&candidate) {
            break;
        }
        best = Some(candidate);
    }
    let mut best = best?;
    let whole = PositionIndex::new(rules);
    let mut left: Vec<LayerPair> = LayerPair::all(p)
        .into_iter()
        .filter(|pair| !best.pairs().contains(pair))
        .collect();
    left.sort_by_key(|&pair| (whole.pair_len(pair), pair));
    // Smallest first, again after each pair taken (it may close another).
    while let Some(taken) = left.iter().position(|&pair| {
        LayerSet::from_pairs(p, best.pairs().iter().copied().chain([pair]))
            .is_ok_and(|candidate| fits(&candidate))
    }) {
        let pair = left.remove(taken);
        best = LayerSet::from_pairs(p, best.pairs().iter().copied().chain([pair])).ok()?;
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;

    #[test]
    fn the_layers_taken_fit_and_one_more_pair_would_not() {
        let rules = race::preset("ur-3").unwrap();
        let whole = LayerSet::whole(3);
        let all = memory_needed(&rules, &whole, false).unwrap();
        assert_eq!(largest_layers_within(&rules, all, false), Some(whole));
        for fraction in [0.9, 0.5, 0.2, 0.05] {
            let memory = (all as f64 * fraction) as u64;
            let set = largest_layers_within(&rules, memory, false).unwrap();
            assert!(!set.is_whole());
            assert!(memory_needed(&rules, &set, false).unwrap() <= memory);
            // No pair left out could be added (closed) and still fit.
            for pair in LayerPair::all(3) {
                if set.pairs().contains(&pair) {
                    continue;
                }
                let more = set.pairs().iter().copied().chain([pair]);
                if let Ok(more) = LayerSet::from_pairs(3, more) {
                    assert!(
                        memory_needed(&rules, &more, false).unwrap() > memory,
                        "{fraction}: {pair} would fit beside {set}"
                    );
                }
            }
        }
        assert_eq!(largest_layers_within(&rules, 1000, false), None);
    }
}
