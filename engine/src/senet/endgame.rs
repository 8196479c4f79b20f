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
/// by the number of taken slots below it).
#[inline]
fn squeeze(bits: u32, taken: u32) -> u32 {
    let mut out = 0;
    let mut rest = bits;
    while rest != 0 {
        let slot = rest.trailing_zeros();
        let below = (taken & ((1u32 << slot) - 1)).count_ones();
        out |= 1 << (slot - below);
        rest &= rest - 1;
    }
    out
}

/// The inverse of [`squeeze`]: spreads `bits` over the slots not in `taken`.
#[inline]
fn spread(bits: u32, taken: u32) -> u32 {
    let mut out = 0;
    let mut free = !taken & ((1u32 << SLOTS) - 1);
    let mut i = 0;
    while free != 0 {
        let slot = free.trailing_zeros();
        if bits >> i & 1 != 0 {
            out |= 1 << slot;
        }
        free &= free - 1;
        i += 1;
    }
    out
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
        let mover = slots_of_houses(mover);
        let other = squeeze(slots_of_houses(other), mover);
        Some(
            self.starts[a as usize][b as usize]
                + colex_rank(mover) * choose(u32::from(SLOTS) - a, b)
                + colex_rank(other),
        )
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
        }
    }
}
