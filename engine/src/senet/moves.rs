//! Senet move generation and application (RULES.md §2.3–2.4).

use super::board::{BEAUTY, OFF, PIECES, REBIRTH, SAFE, Senet, WATER};
use super::position::Position;
use crate::movelist::MoveList;

/// A Senet move: one piece from house `from` to house `to`, where `to` is
/// where the piece finally rests: [`OFF`] (31) when borne off, and for the
/// throw of 1 from house 26 the house the water sends it to (15 or the first
/// free house below). A backward move has `to < from` (and `from < 26`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Start house.
    pub from: u8,
    /// Resting house, or 31 for borne off.
    pub to: u8,
}

impl Move {
    /// Whether this is a backward move (forced when nothing can move forward).
    #[inline]
    pub fn is_backward(&self) -> bool {
        self.to < self.from && self.from != BEAUTY
    }

    /// Whether this is the throw of 1 from 26 into the House of Water.
    #[inline]
    pub fn is_water(&self) -> bool {
        self.from == BEAUTY && self.to <= REBIRTH
    }

    /// The throw that made this move.
    pub fn throw(&self) -> u8 {
        match (self.from, self.to) {
            (f, t) if self.is_water() || t == OFF => exit_throw(f, t),
            (f, t) if t > f => t - f,
            (f, t) => f - t,
        }
    }
}

fn exit_throw(from: u8, to: u8) -> u8 {
    match (from, to) {
        (BEAUTY, OFF) => 5,
        (BEAUTY, _) => 1,
        (f, _) => OFF - f,
    }
}

/// Bits `lo..=hi` (empty when `lo > hi`).
#[inline]
fn span(lo: u8, hi: u8) -> u32 {
    if lo > hi {
        return 0;
    }
    let upper = if hi >= 31 {
        u32::MAX
    } else {
        (1u32 << (hi + 1)) - 1
    };
    upper & !((1u32 << lo) - 1)
}

/// What the opponent's pieces forbid, judged on the position before the move.
struct Obstacles {
    own: u32,
    theirs: u32,
    /// Opponent pieces that cannot be attacked: on a safe house, next to a
    /// piece of their own side (pairs, and so every wall piece).
    untouchable: u32,
    /// Houses of opponent walls: runs of three or more consecutive pieces.
    wall: u32,
}

impl Obstacles {
    #[inline]
    fn new(position: &Position) -> Obstacles {
        let me = position.turn.index();
        let own = position.sides[me].squares;
        let theirs = position.sides[1 - me].squares;
        let paired = theirs & ((theirs << 1) | (theirs >> 1));
        let triple_starts = theirs & (theirs >> 1) & (theirs >> 2);
        let wall = triple_starts | triple_starts << 1 | triple_starts << 2;
        Obstacles {
            own,
            theirs,
            untouchable: paired | (theirs & SAFE),
            wall,
        }
    }

    /// A landing on `to` (a house on the board) that crosses `crossed`.
    #[inline]
    fn can_land(&self, to: u8, crossed: u32) -> bool {
        let bit = 1u32 << to;
        self.own & bit == 0 && self.untouchable & bit == 0 && self.wall & crossed == 0
    }

    /// The house the water sends a piece to: 15, or the first free house below it.
    #[inline]
    fn rebirth_house(&self, moving_from: u8) -> u8 {
        let occupied = (self.own | self.theirs) & !(1u32 << moving_from);
        let free_at_or_below = !occupied & span(1, REBIRTH);
        // The highest free house at or below 15; at most 9 other pieces can
        // stand on 1..=15, so one is always free.
        (31 - free_at_or_below.leading_zeros()) as u8
    }
}

impl Senet {
    /// The legal moves for the side to throw with `throw` (1..=5): the
    /// forward moves if there are any, else the backward moves, else none
    /// (the turn passes). Finished games have no moves.
    pub fn legal_moves(&self, position: &Position, throw: u8) -> MoveList<Move> {
        let mut list = MoveList::new();
        if !(1..=5).contains(&throw) || self.winner(position).is_some() {
            return list;
        }
        let obstacles = Obstacles::new(position);
        let mut pieces = obstacles.own;
        while pieces != 0 {
            let from = pieces.trailing_zeros() as u8;
            pieces &= pieces - 1;
            if let Some(to) = forward_target(&obstacles, from, throw) {
                list.push(Move { from, to });
            }
        }
        if !list.is_empty() {
            return list;
        }
        // No forward move: a piece below 26 moves back by the same amount.
        let mut pieces = obstacles.own;
        while pieces != 0 {
            let from = pieces.trailing_zeros() as u8;
            pieces &= pieces - 1;
            if let Some(to) = backward_target(&obstacles, from, throw) {
                list.push(Move { from, to });
            }
        }
        list
    }

    /// The legal move of the piece on `from` with `throw`, if it has one:
    /// the one [`Senet::legal_moves`] lists for that piece (a forward move,
    /// or a backward one when no piece can move forward). For a caller
    /// that already knows which piece moves (the endgame solver's recorded
    /// choices), without listing the other pieces' moves.
    pub fn move_of_piece(&self, position: &Position, from: u8, throw: u8) -> Option<Move> {
        let obstacles = Obstacles::new(position);
        if !(1..=5).contains(&throw)
            || from > 30
            || obstacles.own & (1u32 << from) == 0
            || self.winner(position).is_some()
        {
            return None;
        }
        if let Some(to) = forward_target(&obstacles, from, throw) {
            return Some(Move { from, to });
        }
        let mut pieces = obstacles.own;
        while pieces != 0 {
            let other = pieces.trailing_zeros() as u8;
            pieces &= pieces - 1;
            if forward_target(&obstacles, other, throw).is_some() {
                return None; // a forward move exists, so no backward one is legal
            }
        }
        let to = backward_target(&obstacles, from, throw)?;
        Some(Move { from, to })
    }

    /// Plays a legal move. Returns the new position (with the side to throw
    /// next) and whether the mover throws again: after a forward move with a
    /// throw of 1, 4 or 5 that does not win.
    pub fn apply(&self, position: &Position, mv: Move) -> (Position, bool) {
        let me = position.turn.index();
        let mut sides = position.sides;
        sides[me].squares &= !(1u32 << mv.from);
        if mv.to == OFF {
            sides[me].scored += 1;
        } else {
            let bit = 1u32 << mv.to;
            if sides[1 - me].squares & bit != 0 {
                // Attack: the two pieces change places.
                sides[1 - me].squares ^= bit | 1u32 << mv.from;
            }
            sides[me].squares |= bit;
        }
        let won = sides[me].scored == PIECES;
        let extra = !won && !mv.is_backward() && matches!(mv.throw(), 1 | 4 | 5);
        let turn = if extra { position.turn } else { !position.turn };
        (Position { sides, turn }, extra)
    }

    /// The position after the side to throw passes.
    pub fn pass(&self, position: &Position) -> Position {
        position.with_turn(!position.turn)
    }
}

/// Where a backward move of the piece on `from` with `throw` rests, if it
/// could make one (legal only when no piece can move forward): pieces
/// below 26 move back by the throw, never below house 1.
#[inline]
fn backward_target(obstacles: &Obstacles, from: u8, throw: u8) -> Option<u8> {
    if from >= BEAUTY || from <= throw {
        return None;
    }
    let to = from - throw;
    obstacles.can_land(to, span(to, from - 1)).then_some(to)
}

/// Where a forward move of the piece on `from` with `throw` rests, if legal.
#[inline]
fn forward_target(obstacles: &Obstacles, from: u8, throw: u8) -> Option<u8> {
    match from {
        // Every piece must stop exactly on 26.
        1..=25 => {
            let to = from + throw;
            (to <= BEAUTY && obstacles.can_land(to, span(from + 1, to))).then_some(to)
        }
        BEAUTY => match throw {
            // Into the water (crossing nothing that a wall can occupy), then on to rebirth.
            1 => Some(obstacles.rebirth_house(from)),
            2..=4 => {
                let to = from + throw;
                obstacles.can_land(to, span(from + 1, to)).then_some(to)
            }
            // Bearing off passes 27-30: a wall on 28-29-30 blocks it.
            _ => (obstacles.wall & span(WATER, 30) == 0).then_some(OFF),
        },
        // From 28, 29, 30 only the exact throw bears off.
        28..=30 => (from + throw == OFF).then_some(OFF),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        assert_eq!(span(1, 1), 0b10);
        assert_eq!(span(2, 4), 0b11100);
        assert_eq!(span(5, 4), 0);
        assert_eq!(span(27, 31), 0xF800_0000);
    }

    #[test]
    fn throws_are_recovered_from_moves() {
        let cases = [
            ((3, 5), 2),
            ((26, 31), 5),
            ((28, 31), 3),
            ((29, 31), 2),
            ((30, 31), 1),
            ((26, 15), 1),
            ((26, 12), 1),
            ((26, 29), 3),
            ((10, 6), 4),
        ];
        for ((from, to), throw) in cases {
            assert_eq!(Move { from, to }.throw(), throw, "{from}->{to}");
        }
        assert!(Move { from: 10, to: 6 }.is_backward());
        assert!(!Move { from: 26, to: 15 }.is_backward());
        assert!(Move { from: 26, to: 14 }.is_water());
    }
}
