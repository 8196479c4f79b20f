//! The index of Senet endgames: every position in which each side has at
//! most `k` pieces left on the board, numbered densely for a table of exact
//! values (the Senet endgame solver and its readers).
//!
//! The rules treat both sides alike (the same path, the same moves), so an
//! endgame is numbered from the view of the side to throw: its pieces
//! ("mover") and the other side's ("other"). A piece rests on one of 29
//! houses (1–26 and 28–30; never 27, the House of Water), its *slot*
//! (house 1 is slot 0, house 26 slot 25, houses 28–30 slots 26–28).
//!
//! Layers: `(a, b)` holds the positions with `a` mover and `b` other pieces
//! on the board, `1 ≤ a, b ≤ k`, in the order `(1,1), (1,2), …, (1,k),
//! (2,1), …, (k,k)`. Within a layer, the mover's slots are ranked in the
//! combinatorial number system (colex order) among all 29 slots, and the
//! other side's among the `29 − a` slots the mover leaves free:
//! `index = start(a, b) + rank(mover) · C(29 − a, b) + rank(other)`.
//! Moves never put a piece back on the board, so a layer's positions lead
//! only into its own layer, its mirror `(b, a)` (the turn passes) and
//! layers with fewer pieces: the solver's order.

use super::board::{BEAUTY, PIECES};
use super::position::{Position, Side};
use crate::combinatorics::{binomial, colex_rank, colex_unrank};
use crate::player::Player;

/// Houses a piece can rest on: 1–26 and 28–30.
pub const SLOTS: u8 = 29;

/// The largest `k` an index can be built for: every piece (5 per side).
pub const MAX_PIECES: u8 = PIECES;

/// `C(n, r)` (`crate::combinatorics`).
#[inline]
fn choose(n: u32, r: u32) -> u64 {
    binomial(n as usize, r as usize)
}

/// The slot of a house a piece can rest on (1–26, 28–30).
#[inline]
pub fn slot_of_house(house: u8) -> u8 {
    debug_assert!((1..=30).contains(&house) && house != 27);
    if house <= BEAUTY {
        house - 1
    } else {
        house - 2
    }
}

/// The house of a slot (0–28).
#[inline]
pub fn house_of_slot(slot: u8) -> u8 {
    debug_assert!(slot < SLOTS);
    if slot < BEAUTY { slot + 1 } else { slot + 2 }
}

/// Slot bits (bit i = slot i) of a bitset of houses (bit s = house s).
#[inline]
pub fn slots_of_houses(houses: u32) -> u32 {
    // Houses 1..=26 shift down by one, 28..=30 by two; 27 is never held.
    ((houses >> 1) & ((1 << 26) - 1)) | ((houses >> 28) & 0b111) << 26
}

/// Houses bits of slot bits: the inverse of [`slots_of_houses`].
#[inline]
pub fn houses_of_slots(slots: u32) -> u32 {
    ((slots & ((1 << 26) - 1)) << 1) | ((slots >> 26) & 0b111) << 28
}

/// `bits` with the slots held in `taken` squeezed out (each slot moves down
/// by the number of taken slots below it; `bits` and `taken` are disjoint).
/// Each taken slot, from the highest down, shifts the bits above it down
/// by one: at most five steps, and no population count (which is a
/// dozen instructions on a CPU without one).
#[inline]
fn squeeze(bits: u32, taken: u32) -> u32 {
    let mut out = bits;
    let mut rest = taken;
    while rest != 0 {
        let slot = 31 - rest.leading_zeros();
        let below = (1u32 << slot) - 1;
        out = (out & below) | ((out >> 1) & !below);
        rest &= below;
    }
    out
}

/// The inverse of [`squeeze`]: spreads `bits` over the slots not in `taken`
/// (each taken slot, from the lowest up, shifts the bits at and above it
/// up by one).
#[inline]
fn spread(bits: u32, taken: u32) -> u32 {
    let mut out = bits;
    let mut rest = taken;
    while rest != 0 {
        let below = (1u32 << rest.trailing_zeros()) - 1;
        out = (out & below) | ((out & !below) << 1);
        rest &= rest - 1;
    }
    out
}

/// The next set of as many elements in colex order (the next larger number
/// with as many bits set; Gosper's hack, the division a shift).
#[inline]
fn next_combination(bits: u32) -> u32 {
    let lowest = bits & bits.wrapping_neg();
    let ripple = bits + lowest;
    (((ripple ^ bits) >> 2) >> lowest.trailing_zeros()) | ripple
}

/// The endgames of a range of one layer in index order (see
/// [`EndgameIndex::walk`]).
#[derive(Clone, Debug)]
pub struct LayerWalk {
    /// The mover's slots and houses, and the other side's slots squeezed
    /// (ranked among the slots the mover leaves free), of the next endgame.
    mover: u32,
    mover_houses: u32,
    other: u32,
    /// `1 << (29 − a)`: the other side's squeezed slots are below it.
    others_end: u32,
    /// The other side's first set (its `b` lowest slots).
    others_first: u32,
    left: u64,
}

impl Iterator for LayerWalk {
    type Item = Endgame;

    #[inline]
    fn next(&mut self) -> Option<Endgame> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let endgame = Endgame {
            mover: self.mover_houses,
            other: houses_of_slots(spread(self.other, self.mover)),
        };
        self.other = next_combination(self.other);
        if self.other >= self.others_end {
            self.other = self.others_first;
            self.mover = next_combination(self.mover);
            self.mover_houses = houses_of_slots(self.mover);
        }
        Some(endgame)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.left).unwrap_or(usize::MAX);
        (left, usize::try_from(self.left).ok())
    }
}

/// An endgame seen from the side to throw: both sides' houses as bitsets
/// (bit s = house s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endgame {
    /// The houses of the side to throw.
    pub mover: u32,
    /// The houses of the other side.
    pub other: u32,
}

impl Endgame {
    /// The endgame of a position (from the view of its side to throw).
    pub fn of(position: &Position) -> Endgame {
        let turn = position.turn();
        Endgame {
            mover: position.side(turn).square_bits(),
            other: position.side(!turn).square_bits(),
        }
    }

    /// A position with light to throw holding `mover` (the rest of each
    /// side's five pieces borne off).
    pub fn position(&self) -> Position {
        let side = |houses: u32| Side::from_parts(houses, PIECES - houses.count_ones() as u8);
        Position::from_parts([side(self.mover), side(self.other)], Player::Light)
    }

    /// The same pieces with the other side to throw.
    pub fn flipped(&self) -> Endgame {
        Endgame {
            mover: self.other,
            other: self.mover,
        }
    }
}

/// The dense numbering of the endgames with at most `k` pieces per side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndgameIndex {
    pieces: u8,
    /// `starts[a][b]`: the first index of layer `(a, b)`; `starts[k][k+1]`-style
    /// ends are covered by [`EndgameIndex::layer`].
    starts: [[u64; 6]; 6],
    len: u64,
}

impl EndgameIndex {
    /// The index of the endgames with 1 to `pieces` pieces per side on the
    /// board; `None` unless `1 ≤ pieces ≤ 5`.
    pub fn new(pieces: u8) -> Option<EndgameIndex> {
        if !(1..=MAX_PIECES).contains(&pieces) {
            return None;
        }
        let mut starts = [[0u64; 6]; 6];
        let mut next = 0;
        for a in 1..=pieces {
            for b in 1..=pieces {
                starts[a as usize][b as usize] = next;
                next += Self::layer_len(a, b);
            }
        }
        Some(EndgameIndex {
            pieces,
            starts,
            len: next,
        })
    }

    /// The most pieces per side on the board (`k`).
    pub fn pieces(&self) -> u8 {
        self.pieces
    }

    /// Number of endgames.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are none (never: `k ≥ 1`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Positions with `a` mover and `b` other pieces on the board.
    pub fn layer_len(a: u8, b: u8) -> u64 {
        choose(SLOTS.into(), a.into()) * choose(u32::from(SLOTS - a), b.into())
    }

    /// The index range of layer `(a, b)` (`1 ≤ a, b ≤ k`).
    pub fn layer(&self, a: u8, b: u8) -> std::ops::Range<u64> {
        let start = self.starts[a as usize][b as usize];
        start..start + Self::layer_len(a, b)
    }

    /// The index of an endgame, or `None` when a side has no piece or more
    /// than `k` pieces on the board, or the endgame is not a position
    /// (a piece on 27 or off the board, two pieces on one house).
    #[inline]
    pub fn index(&self, endgame: &Endgame) -> Option<u64> {
        const HOUSES: u32 = ((1 << 31) - 2) & !(1 << 27);
        let Endgame { mover, other } = *endgame;
        let (a, b) = (mover.count_ones(), other.count_ones());
        let k = u32::from(self.pieces);
        if !(1..=k).contains(&a)
            || !(1..=k).contains(&b)
            || (mover | other) & !HOUSES != 0
            || mover & other != 0
        {
            return None;
        }
        // Counts of at most k ≤ 5: they fit a u8.
        Some(self.index_in((a as u8, b as u8), endgame))
    }

    /// The index of an endgame the caller knows to be in layer `(a, b)` of
    /// this index (`a` and `b` its sides' pieces on the board, a position):
    /// [`EndgameIndex::index`] without counting the pieces or checking
    /// (the counts are checked in debug builds only; a property test holds
    /// it to `index`). For the solver's sweeps, which know
    /// each successor's layer from the move that made it.
    #[inline(always)]
    pub fn index_in(&self, (a, b): (u8, u8), endgame: &Endgame) -> u64 {
        debug_assert_eq!(
            (endgame.mover.count_ones(), endgame.other.count_ones()),
            (u32::from(a), u32::from(b))
        );
        let mover = slots_of_houses(endgame.mover);
        let other = squeeze(slots_of_houses(endgame.other), mover);
        self.starts[a as usize][b as usize]
            + colex_rank(mover) * choose(u32::from(SLOTS - a), b.into())
            + colex_rank(other)
    }

    /// The index of a position's endgame, when it is one of this index's
    /// (a game still going on, at most `k` pieces per side on the board).
    #[inline]
    pub fn index_of(&self, position: &Position) -> Option<u64> {
        self.index(&Endgame::of(position))
    }

    /// The endgame at `index` (`index < len()`).
    pub fn endgame(&self, index: u64) -> Endgame {
        debug_assert!(index < self.len);
        let (a, b) = self.layer_of(index);
        self.endgame_in(a, b, index)
    }

    /// The endgame at `index` of layer `(a, b)` (for walking a layer
    /// without looking its layer up for every position).
    #[inline]
    pub fn endgame_in(&self, a: u8, b: u8, index: u64) -> Endgame {
        debug_assert!(self.layer(a, b).contains(&index));
        let within = index - self.starts[a as usize][b as usize];
        let others = choose(u32::from(SLOTS - a), b.into());
        let mover = colex_unrank(within / others, SLOTS.into(), a.into());
        let other = spread(
            colex_unrank(within % others, (SLOTS - a).into(), b.into()),
            mover,
        );
        Endgame {
            mover: houses_of_slots(mover),
            other: houses_of_slots(other),
        }
    }

    /// The endgames of `range` (inside layer `(a, b)`), in index order:
    /// the first unranked, each next one by stepping to the next
    /// combination, which is how a sweep walks a block without unranking
    /// every position.
    pub fn walk(&self, a: u8, b: u8, range: std::ops::Range<u64>) -> LayerWalk {
        debug_assert!(range.is_empty() || self.layer(a, b).contains(&range.start));
        debug_assert!(range.end <= self.layer(a, b).end);
        let within = range.start - self.starts[a as usize][b as usize];
        let others = choose(u32::from(SLOTS - a), b.into());
        let mover = colex_unrank(within / others, SLOTS.into(), a.into());
        LayerWalk {
            mover,
            mover_houses: houses_of_slots(mover),
            other: colex_unrank(within % others, (SLOTS - a).into(), b.into()),
            others_end: 1 << (SLOTS - a),
            others_first: (1 << b) - 1,
            left: range.end.saturating_sub(range.start),
        }
    }

    /// The layer `(a, b)` holding `index`.
    pub fn layer_of(&self, index: u64) -> (u8, u8) {
        for a in 1..=self.pieces {
            for b in 1..=self.pieces {
                if self.layer(a, b).contains(&index) {
                    return (a, b);
                }
            }
        }
        (self.pieces, self.pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::senet::Senet;

    #[test]
    fn slots_and_houses_correspond() {
        for slot in 0..SLOTS {
            let house = house_of_slot(slot);
            assert_ne!(house, 27);
            assert_eq!(slot_of_house(house), slot);
            assert_eq!(slots_of_houses(1 << house), 1 << slot);
            assert_eq!(houses_of_slots(1 << slot), 1 << house);
        }
    }

    #[test]
    fn layer_sizes() {
        assert_eq!(EndgameIndex::layer_len(1, 1), 29 * 28);
        assert_eq!(EndgameIndex::layer_len(3, 3), 3654 * 2600);
        let index = EndgameIndex::new(2).unwrap();
        assert_eq!(index.len(), 29 * 28 + 2 * 29 * 378 + 406 * 351);
        assert!(EndgameIndex::new(0).is_none());
        assert!(EndgameIndex::new(6).is_none());
    }

    /// Every index of the k = 2 numbering names a distinct endgame that
    /// numbers back to it, and every endgame is numbered (by counting).
    #[test]
    fn k2_is_a_bijection() {
        let index = EndgameIndex::new(2).unwrap();
        let mut seen = std::collections::HashSet::new();
        for i in 0..index.len() {
            let endgame = index.endgame(i);
            assert_eq!(endgame.mover & endgame.other, 0);
            assert_eq!(endgame.mover >> 27 & 1, 0);
            assert_eq!(endgame.other >> 27 & 1, 0);
            assert_eq!(index.index(&endgame), Some(i), "{endgame:?}");
            assert!(seen.insert(endgame));
        }
    }

    /// A walk over any stretch of a layer names the endgames that
    /// unranking each index names, across the steps where the mover's
    /// pieces change.
    #[test]
    fn walks_agree_with_unranking() {
        let index = EndgameIndex::new(4).unwrap();
        for (a, b) in [(1, 1), (1, 4), (2, 3), (3, 2), (4, 1), (4, 4)] {
            let layer = index.layer(a, b);
            let len = layer.end - layer.start;
            for start in [0, 1, len / 3, len / 2 + 7, len.saturating_sub(5000)] {
                let range = layer.start + start..(layer.start + start + 5000).min(layer.end);
                let walked: Vec<Endgame> = index.walk(a, b, range.clone()).collect();
                assert_eq!(walked.len() as u64, range.end - range.start);
                for (i, endgame) in range.zip(walked) {
                    assert_eq!(endgame, index.endgame_in(a, b, i), "({a}, {b}) at {i}");
                }
            }
        }
    }

    /// Squeezing and spreading against the obvious slot-by-slot reference.
    #[test]
    fn squeeze_and_spread_agree_with_counting() {
        let reference = |bits: u32, taken: u32| {
            (0..32).filter(|s| bits >> s & 1 != 0).fold(0u32, |out, s| {
                out | 1 << (s - (taken & ((1u32 << s) - 1)).count_ones())
            })
        };
        let mut state = 0x9e37_79b9u32;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let taken = state & 0x1fff_ffff & state.rotate_left(7) & state.rotate_left(13);
            let bits = (state.rotate_left(3) & 0x1fff_ffff) & !taken;
            assert_eq!(
                squeeze(bits, taken),
                reference(bits, taken),
                "{bits:#x} {taken:#x}"
            );
            assert_eq!(spread(squeeze(bits, taken), taken), bits);
        }
    }

    #[test]
    fn outside_the_index() {
        let index = EndgameIndex::new(2).unwrap();
        let senet = Senet::new();
        assert_eq!(index.index_of(&senet.start()), None);
        let three = Endgame {
            mover: 1 << 3 | 1 << 5 | 1 << 7,
            other: 1 << 9,
        };
        assert_eq!(index.index(&three), None);
        let water = Endgame {
            mover: 1 << 27,
            other: 1 << 9,
        };
        assert_eq!(index.index(&water), None);
        let shared = Endgame {
            mover: 1 << 9,
            other: 1 << 9,
        };
        assert_eq!(index.index(&shared), None);
        let none = Endgame {
            mover: 0,
            other: 1 << 9,
        };
        assert_eq!(index.index(&none), None);
    }

    #[test]
    fn positions_round_trip() {
        let index = EndgameIndex::new(3).unwrap();
        let endgame = Endgame {
            mover: 1 << 26 | 1 << 30,
            other: 1 << 1 | 1 << 15 | 1 << 28,
        };
        let position = endgame.position();
        assert_eq!(position.side(Player::Light).scored(), 3);
        assert_eq!(position.side(Player::Dark).scored(), 2);
        assert_eq!(Endgame::of(&position), endgame);
        assert_eq!(
            Endgame::of(&position.with_turn(Player::Dark)),
            endgame.flipped()
        );
        let i = index.index(&endgame).unwrap();
        assert_eq!(index.endgame(i), endgame);
        assert_eq!(index.layer_of(i), (2, 3));
    }

    proptest::proptest! {
        /// Any endgame with 1 to 5 pieces per side numbers to an index
        /// inside its layer that names it back.
        #[test]
        fn any_endgame_round_trips(slots in proptest::collection::vec(0u8..SLOTS, 2..=10), split in 1usize..10) {
            let mut distinct: Vec<u8> = Vec::new();
            for s in slots {
                if !distinct.contains(&s) {
                    distinct.push(s);
                }
            }
            proptest::prop_assume!(distinct.len() >= 2);
            let split = split.min(distinct.len() - 1).clamp(distinct.len().saturating_sub(5), 5);
            proptest::prop_assume!(split >= 1 && distinct.len() - split <= 5);
            let houses = |s: &[u8]| s.iter().fold(0u32, |bits, &slot| bits | 1 << house_of_slot(slot));
            let endgame = Endgame { mover: houses(&distinct[..split]), other: houses(&distinct[split..]) };
            let index = EndgameIndex::new(5).unwrap();
            let i = index.index(&endgame).unwrap();
            let (a, b) = (split as u8, (distinct.len() - split) as u8);
            proptest::prop_assert!(index.layer(a, b).contains(&i));
            proptest::prop_assert_eq!(index.endgame(i), endgame);
            // Told its layer, the index gives the same number.
            proptest::prop_assert_eq!(index.index_in((a, b), &endgame), i);
        }
    }
}
