//! Which layers a partial solve takes: the largest set of late layers
//! (most pieces borne off) closed under play whose solve fits a memory
//! budget, for a rule set too large to solve whole in it (or at all:
//! past the 2^30 − 1 positions a solve can index). Planned from the
//! layers' sizes alone (counted in `u128`), so a rule set of any size is
//! planned without building an index of it.

use crate::plan::Layout;
use crate::policy::Rolls;
use crate::record::MAX_POSITIONS;
use sawah_engine::race::{LayerPair, LayerSet, RuleSet, layer_sizes};

/// A rule set's layer sizes, and what a solve of a set of them needs.
struct Sizes {
    pieces: u8,
    /// `layers[a][b]`: positions with the mover's `a` and the opponent's
    /// `b` pieces borne off.
    layers: Vec<Vec<u128>>,
    moving_rolls: usize,
}

impl Sizes {
    fn new(rules: &RuleSet) -> Sizes {
        Sizes {
            pieces: rules.pieces(),
            layers: layer_sizes(rules),
            moving_rolls: Rolls::new(rules).moving.len(),
        }
    }

    /// Positions in a layer pair (the layer and its mirror).
    fn pair(&self, pair: LayerPair) -> u128 {
        let (a, b) = (usize::from(pair.mover), usize::from(pair.opponent));
        if a == b {
            self.layers[a][b]
        } else {
            self.layers[a][b] + self.layers[b][a]
        }
    }

    /// Positions the set holds (its unfinished pairs and the finished
    /// layers they reach).
    fn held(&self, set: &LayerSet) -> u128 {
        let p = usize::from(self.pieces);
        (0..=p)
            .flat_map(|a| (0..=p).map(move |b| (a, b)))
            .filter(|&(a, b)| set.contains(a as u8, b as u8))
            .map(|(a, b)| self.layers[a][b])
            .sum()
    }

    /// The memory a solve of `set` needs at least, in bytes (see
    /// [`memory_needed`]), or `None` past the solver's index.
    fn needed(&self, set: &LayerSet, release: bool) -> Option<u64> {
        let held = self.held(set);
        if held >= u128::from(MAX_POSITIONS) {
            return None;
        }
        let unfinished: u128 = set.pairs().iter().map(|&pair| self.pair(pair)).sum();
        let solving = set
            .pairs()
            .iter()
            .map(|&pair| {
                // The values held while `pair` is solved: every one, or with
                // checkpoints the finished positions and the pair's score
                // diagonal and the one above it (as `plan::held_values`).
                let values = if release {
                    let total = pair.borne_off();
                    let diagonals: u128 = set
                        .pairs()
                        .iter()
                        .filter(|p| p.borne_off() == total || p.borne_off() == total + 1)
                        .map(|&p| self.pair(p))
                        .sum();
                    held - unfinished + diagonals
                } else {
                    held
                };
                let records = Layout::NARROWEST.bytes(
                    self.pair(pair) as u64,
                    0,
                    self.moving_rolls,
                    self.pieces,
                );
                8 * values as u64 + records
            })
            .max()
            .unwrap_or(0);
        // Every value is held at the end, when the released pairs come
        // back from their checkpoints.
        Some(solving.max(8 * held as u64))
    }
}

/// The memory a solve of `layers` needs at least, in bytes: its values (8
/// bytes a position; every one of them is held at the end) or the
/// solver's own least (values held while solving and one recorded
/// candidate per roll for the largest pair), whichever is more. `None`
/// when the layers hold too many positions for the solver to index.
/// With `release`, the solve keeps checkpoints and holds two score
/// diagonals of values at a time while solving.
pub fn memory_needed(rules: &RuleSet, layers: &LayerSet, release: bool) -> Option<u64> {
    Sizes::new(rules).needed(layers, release)
}

/// The largest set of late layers whose solve fits `memory` bytes: every
/// score diagonal from the highest down while the next still fits, then
/// as many pairs below them as fit, smallest first (each one a pair whose
/// moves lead only into the set). `None` when not even the last pair
/// (every piece but one of each side borne off) fits.
pub fn largest_layers_within(rules: &RuleSet, memory: u64, release: bool) -> Option<LayerSet> {
    let sizes = Sizes::new(rules);
    let p = rules.pieces();
    let fits = |set: &LayerSet| sizes.needed(set, release).is_some_and(|m| m <= memory);
    let mut best: Option<LayerSet> = None;
    for d in (0..=2 * (p - 1)).rev() {
        let candidate = LayerSet::from_diagonal(p, d);
        if !fits(&candidate) {
            break;
        }
        best = Some(candidate);
    }
    let mut best = best?;
    let mut left: Vec<LayerPair> = LayerPair::all(p)
        .into_iter()
        .filter(|pair| !best.pairs().contains(pair))
        .collect();
    left.sort_by_key(|&pair| (sizes.pair(pair), pair));
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
    use crate::solve::least_needed;
    use sawah_engine::race::{self, PositionIndex};

    /// The plan from the sizes is the solver's own, worked out on an index.
    #[test]
    fn the_memory_planned_from_sizes_is_what_the_solver_asks() {
        let rules = race::preset("ur-3").unwrap();
        for d in 0..=4 {
            let set = LayerSet::from_diagonal(3, d);
            let index = PositionIndex::of_layers(&rules, &set);
            for release in [false, true] {
                let solver =
                    least_needed(&rules, &index, set.pairs(), release).max(8 * index.len());
                assert_eq!(
                    memory_needed(&rules, &set, release),
                    Some(solver),
                    "{d} {release}"
                );
            }
        }
    }

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
