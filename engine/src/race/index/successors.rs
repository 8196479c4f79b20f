//! Every legal move's successor of a position, as its index: what the
//! solver's Bellman passes do for every move of every position.
//!
//! [`RuleSet::legal_moves`], [`RuleSet::apply`] and [`PositionIndex::index`]
//! do it one successor at a time, each from scratch. Here the position's
//! two sides are packed once (as the mover's and as the opponent's), and a
//! move, which changes one piece of the mover's and at most one of the
//! opponent's (a capture), swaps one square's bit of the packing for
//! another's. Checked against those three on every position of the tiny
//! presets and on positions spread over every named rule set.
//!
//! [`RuleSet::legal_moves`]: crate::race::RuleSet::legal_moves
//! [`RuleSet::apply`]: crate::race::RuleSet::apply

use super::{FastRank, PositionIndex};
use crate::player::Player;
use crate::race::moves::Move;
use crate::race::position::Position;

/// A position's successors, roll by roll ([`PositionIndex::successors`]).
pub struct Successors<'a> {
    index: &'a PositionIndex,
    /// The position, light to move.
    position: Position,
    /// The dark pieces on light's squares (where light would capture them).
    opponents: u32,
    /// With the index's look-up tables, both sides' packings.
    packed: Option<Packed<'a>>,
}

/// Both sides of a position packed as the mover's and as the opponent's.
struct Packed<'a> {
    fast: &'a FastRank,
    mover_as_mover: u32,
    mover_as_opponent: u32,
    opponent_as_mover: u32,
    opponent_as_opponent: u32,
}

impl PositionIndex {
    /// The successors of `position`: each legal move's resulting position
    /// ranked in this index, with whether the mover rolls again. The
    /// position is normalised first (dark to move is ranked as its
    /// colour-flipped twin, like [`PositionIndex::index`]).
    pub fn successors(&self, position: &Position) -> Successors<'_> {
        let position = if position.turn == Player::Light {
            *position
        } else {
            position.flipped()
        };
        let [mover, opponent] = position.sides;
        let tables = &self.rules.tables.light;
        let packed = self.fast.as_deref().map(|fast| Packed {
            fast,
            mover_as_mover: fast.as_mover(mover.squares),
            mover_as_opponent: fast.as_opponent(mover.squares),
            opponent_as_mover: fast.as_mover(opponent.squares),
            opponent_as_opponent: fast.as_opponent(opponent.squares),
        });
        Successors {
            index: self,
            position,
            opponents: tables.opponent_in_my_numbering(opponent.squares),
            packed,
        }
    }
}

impl Successors<'_> {
    /// Calls `f(index, extra_roll)` for every legal move with `roll`, in the
    /// order of [`RuleSet::legal_moves`](crate::race::RuleSet::legal_moves)
    /// (by destination square): the successor's index, and whether the
    /// mover rolls again (then the successor has the same side to move;
    /// otherwise the opponent moves next). Nothing for a roll that cannot
    /// move.
    #[inline]
    pub fn for_roll(&self, roll: u8, mut f: impl FnMut(u64, bool)) {
        let rules = &self.index.rules;
        let [mine, theirs] = self.position.sides;
        let tables = &rules.tables.light;
        let off = rules.off();
        let mut targets = rules.landing_squares(tables, (&mine, &theirs), self.opponents, roll);
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            let from = to - roll;
            let Some(packed) = &self.packed else {
                let outcome = rules.apply(&self.position, Move { from, to });
                f(self.index.index(&outcome.position), outcome.extra_roll);
                continue;
            };
            let borne_off = to == off;
            // The opponent's square under the piece, if it holds a piece.
            let captured = if !borne_off && self.opponents >> to & 1 != 0 {
                usize::from(tables.opp_square[usize::from(to)])
            } else {
                0
            };
            let extra_roll = rules.gives_extra_roll(tables, to, captured != 0);
            let fast = packed.fast;
            let (from, to) = (usize::from(from), usize::from(to));
            // Squares 0 (entering) and L+1 (borne off) pack to nothing.
            let moved = |packing: u32, square: &[u32; 32]| packing & !square[from] | square[to];
            let hit = |packing: u32, square: &[u32; 32]| packing & !square[captured];
            let scored = mine.scored + u8::from(borne_off);
            let (scores, mover, opponent) = if extra_roll {
                (
                    (scored, theirs.scored),
                    moved(packed.mover_as_mover, &fast.mover_square),
                    hit(packed.opponent_as_opponent, &fast.opponent_square),
                )
            } else {
                (
                    (theirs.scored, scored),
                    hit(packed.opponent_as_mover, &fast.mover_square),
                    moved(packed.mover_as_opponent, &fast.opponent_square),
                )
            };
            let ranks = fast
                .sets(mover, opponent, self.index.cells)
                .map(|set| fast.rank(set));
            f(self.index.index_of_ranks(scores, ranks), extra_roll);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::race::{PositionIndex, RuleSet, preset, presets};

    /// [`PositionIndex::successors`] against legal moves, applied and
    /// ranked one by one, for every roll of `index`'s position `i`, both
    /// as ranked and with dark to move; and [`RuleSet::move_count`]
    /// against the moves listed.
    fn check(rules: &RuleSet, index: &PositionIndex, i: u64) {
        let position = index.position(i).unwrap();
        for position in [position, position.flipped()] {
            let successors = index.successors(&position);
            for roll in 0..=rules.dice().max_roll() + 1 {
                let expected: Vec<(u64, bool)> = rules
                    .legal_moves(&position, roll)
                    .iter()
                    .map(|&mv| {
                        let outcome = rules.apply(&position, mv);
                        (index.index(&outcome.position), outcome.extra_roll)
                    })
                    .collect();
                let mut found = Vec::new();
                successors.for_roll(roll, |s, extra| found.push((s, extra)));
                assert_eq!(found, expected, "{} position {i} roll {roll}", rules.name());
                assert_eq!(
                    rules.move_count(&position, roll) as usize,
                    expected.len(),
                    "{} position {i} roll {roll}: move count",
                    rules.name()
                );
            }
        }
    }

    #[test]
    fn successors_agree_with_moves_applied_and_ranked() {
        for name in presets::TINY {
            let rules = preset(name).unwrap();
            let index = PositionIndex::new(&rules);
            (0..index.len()).for_each(|i| check(&rules, &index, i));
        }
        for name in presets::NAMED.into_iter().chain(presets::ROYALUR) {
            let rules = preset(name).unwrap();
            let index = PositionIndex::new(&rules);
            let step = (index.len() / 20_000).max(1);
            (0..index.len())
                .step_by(step as usize)
                .for_each(|i| check(&rules, &index, i));
        }
    }

    /// The bit loops' path (rule sets whose masks are too wide for the
    /// look-up tables) gives the same successors.
    #[test]
    fn successors_without_the_tables_agree() {
        let rules = preset("masters-3").unwrap();
        let mut index = PositionIndex::new(&rules);
        index.fast = None;
        (0..index.len())
            .step_by(7)
            .for_each(|i| check(&rules, &index, i));
    }
}
