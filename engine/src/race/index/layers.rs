//! [`LayerPair`] and [`LayerSet`]: the layers a solve works by. Pieces borne off never
//! come back, so play only ever leads from a layer (mover's borne-off
//! count `a`, opponent's `b`) to itself, its mirror `(b, a)`, or a layer
//! with one more piece borne off. A set of layer pairs that holds, with
//! each pair, every pair one more piece borne off from it (an *up-set*)
//! is therefore closed under play: every position it holds has all its
//! successors in it, so its values can be solved exactly without the rest
//! of the game. The late layers (many pieces borne off) are the cheap
//! ones, which is where a rule set too large to solve whole is solved.

/// A layer pair: the positions where the side to move has borne off
/// `mover` pieces and the other side `opponent`, together with the mirror
/// layer (`opponent`, `mover`), which holds every position's twin (the same
/// pieces with the other side to move). The solver works pair by pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LayerPair {
    /// Pieces borne off by the side to move.
    pub mover: u8,
    /// Pieces borne off by the other side.
    pub opponent: u8,
}

impl LayerPair {
    /// The pair of layer (`mover`, `opponent`).
    pub const fn new(mover: u8, opponent: u8) -> LayerPair {
        LayerPair { mover, opponent }
    }

    /// Every pair of a rule set with `pieces` pieces, each once (`mover` at
    /// most `opponent`), in order.
    pub fn all(pieces: u8) -> Vec<LayerPair> {
        (0..pieces)
            .flat_map(|mover| (mover..pieces).map(move |opponent| LayerPair::new(mover, opponent)))
            .collect()
    }

    /// Whether the layer is its own mirror (both sides have borne off as many).
    pub fn is_own_mirror(self) -> bool {
        self.mover == self.opponent
    }

    /// Pieces borne off in all (the score diagonal the pair lies on).
    pub fn borne_off(self) -> u8 {
        self.mover + self.opponent
    }
}

impl std::fmt::Display for LayerPair {
    /// `(mover, opponent)`, as the solver's reports print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.mover, self.opponent)
    }
}

/// A set of unfinished layer pairs closed under play (see the module
/// documentation), and the finished layers their moves reach.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayerSet {
    pieces: u8,
    /// The pairs held, in [`LayerPair::all`]'s order.
    pairs: Vec<LayerPair>,
}

/// Why a list of layer pairs is not a [`LayerSet`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayerSetError {
    /// A pair names a layer the rule set does not have.
    #[error("layer pair {pair} is not a pair of unfinished layers of a {pieces}-piece rule set")]
    NoSuchPair {
        /// The pair given.
        pair: LayerPair,
        /// The rule set's pieces a side.
        pieces: u8,
    },
    /// A pair is held without a pair its moves lead to.
    #[error("layer pair {pair} is held but {missing}, which its moves lead to, is not")]
    NotClosed {
        /// The pair held.
        pair: LayerPair,
        /// The pair one more piece borne off that is missing.
        missing: LayerPair,
    },
}

impl LayerSet {
    /// Every layer of a rule set with `pieces` pieces a side.
    pub fn whole(pieces: u8) -> LayerSet {
        LayerSet {
            pieces,
            pairs: LayerPair::all(pieces),
        }
    }

    /// The pairs with at least `borne_off` pieces borne off in all (both
    /// sides together): the score diagonals from `borne_off` up.
    pub fn from_diagonal(pieces: u8, borne_off: u8) -> LayerSet {
        LayerSet {
            pieces,
            pairs: LayerPair::all(pieces)
                .into_iter()
                .filter(|pair| pair.borne_off() >= borne_off)
                .collect(),
        }
    }

    /// The set of `pairs` (in any order, each pair as `(a, b)` or its
    /// mirror `(b, a)`), checked to be closed under play.
    pub fn from_pairs(
        pieces: u8,
        pairs: impl IntoIterator<Item = LayerPair>,
    ) -> Result<LayerSet, LayerSetError> {
        let normal = |pair: LayerPair| {
            LayerPair::new(pair.mover.min(pair.opponent), pair.mover.max(pair.opponent))
        };
        let mut held = Vec::new();
        for pair in pairs {
            if pair.mover >= pieces || pair.opponent >= pieces {
                return Err(LayerSetError::NoSuchPair { pair, pieces });
            }
            held.push(normal(pair));
        }
        let set = LayerSet {
            pieces,
            pairs: LayerPair::all(pieces)
                .into_iter()
                .filter(|pair| held.contains(pair))
                .collect(),
        };
        for &pair in &set.pairs {
            let LayerPair { mover, opponent } = pair;
            for next in [(mover + 1, opponent), (mover, opponent + 1)] {
                let next = normal(LayerPair::new(next.0, next.1));
                if next.opponent < pieces && !set.pairs.contains(&next) {
                    return Err(LayerSetError::NotClosed {
                        pair,
                        missing: next,
                    });
                }
            }
        }
        Ok(set)
    }

    /// Pieces a side of the rule set.
    pub fn pieces(&self) -> u8 {
        self.pieces
    }

    /// The unfinished layer pairs held (`mover ≤ opponent`), in
    /// [`LayerPair::all`]'s order.
    pub fn pairs(&self) -> &[LayerPair] {
        &self.pairs
    }

    /// Whether every layer is held.
    pub fn is_whole(&self) -> bool {
        self.pairs.len() == LayerPair::all(self.pieces).len()
    }

    /// Whether the layer (mover borne off `s_m`, opponent `s_o`) is held:
    /// an unfinished layer when its pair is, a finished one (a side has
    /// borne off every piece) when the pair it is reached from is.
    pub fn contains(&self, s_m: u8, s_o: u8) -> bool {
        let p = self.pieces;
        let (low, high) = (s_m.min(s_o), s_m.max(s_o));
        if high > p || (low == p) {
            return false;
        }
        // A finished layer (p, x) is reached by bearing off from (p − 1, x).
        let high = if high == p { p - 1 } else { high };
        let pair = LayerPair::new(low.min(high), low.max(high));
        self.pairs.contains(&pair)
    }

    /// The lowest score diagonal held whole (pieces borne off in all),
    /// and whether pairs of the diagonal below it are held too: how the
    /// set is described to people.
    pub fn lowest_whole_diagonal(&self) -> (u8, bool) {
        let all = LayerPair::all(self.pieces);
        let whole = |d: u8| {
            all.iter()
                .filter(|pair| pair.borne_off() == d)
                .all(|pair| self.pairs.contains(pair))
        };
        let top = 2 * self.pieces.saturating_sub(1);
        let mut lowest = top + 1;
        while lowest > 0 && whole(lowest - 1) {
            lowest -= 1;
        }
        let below = lowest > 0 && self.pairs.iter().any(|pair| pair.borne_off() == lowest - 1);
        (lowest, below)
    }
}

impl std::fmt::Display for LayerSet {
    /// `every layer`, or `the layers with at least D pieces borne off`
    /// (and which pairs of the diagonal below).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_whole() {
            return f.write_str("every layer");
        }
        let (lowest, below) = self.lowest_whole_diagonal();
        let pieces = if lowest == 1 { "piece" } else { "pieces" };
        write!(
            f,
            "the layers with at least {lowest} {pieces} borne off in all"
        )?;
        if below {
            let extra: Vec<String> = self
                .pairs
                .iter()
                .filter(|pair| pair.borne_off() + 1 == lowest)
                .map(|pair| pair.to_string())
                .collect();
            write!(f, ", and layer pairs {}", extra.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonals_are_closed_and_a_gap_is_named() {
        for pieces in 1..=7u8 {
            for d in 0..=2 * pieces {
                let set = LayerSet::from_diagonal(pieces, d);
                assert_eq!(LayerSet::from_pairs(pieces, set.pairs().to_vec()), Ok(set));
            }
        }
        assert!(LayerSet::from_diagonal(3, 0).is_whole());
        assert!(!LayerSet::from_diagonal(3, 1).is_whole());
        // (1, 1) without (1, 2).
        let error = LayerSet::from_pairs(3, [LayerPair::new(1, 1), LayerPair::new(2, 2)]);
        assert_eq!(
            error,
            Err(LayerSetError::NotClosed {
                pair: LayerPair::new(1, 1),
                missing: LayerPair::new(1, 2)
            })
        );
        assert!(matches!(
            LayerSet::from_pairs(3, [LayerPair::new(3, 0)]),
            Err(LayerSetError::NoSuchPair { .. })
        ));
        // A mirror is the same pair.
        let set = LayerSet::from_pairs(2, [LayerPair::new(1, 0), LayerPair::new(1, 1)]).unwrap();
        assert_eq!(set.pairs(), &[LayerPair::new(0, 1), LayerPair::new(1, 1)]);
    }

    #[test]
    fn finished_layers_are_held_with_the_pair_they_are_reached_from() {
        let set = LayerSet::from_diagonal(3, 3);
        // (1, 2) and (2, 2) are held, (0, 2) is not.
        assert!(set.contains(1, 2) && set.contains(2, 1) && set.contains(2, 2));
        assert!(!set.contains(0, 2) && !set.contains(1, 1));
        // (3, 1) is reached from (2, 1); (3, 0) from (2, 0), not held.
        assert!(set.contains(3, 1) && set.contains(1, 3) && set.contains(3, 2));
        assert!(!set.contains(3, 0) && !set.contains(0, 3));
        assert!(!set.contains(3, 3));
        assert_eq!(
            set.to_string(),
            "the layers with at least 3 pieces borne off in all"
        );
        let more =
            LayerSet::from_pairs(3, set.pairs().iter().copied().chain([LayerPair::new(0, 2)]))
                .unwrap();
        assert_eq!(
            more.to_string(),
            "the layers with at least 3 pieces borne off in all, and layer pairs (0, 2)"
        );
        assert_eq!(LayerSet::whole(3).to_string(), "every layer");
    }
}
