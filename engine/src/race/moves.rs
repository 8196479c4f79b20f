//! Race move generation and application (RULES.md §1.1).

use super::position::Position;
use super::rules::RuleSet;
use crate::movelist::MoveList;

/// A race move: one piece from square `from` (0 = entering) to square `to`
/// (L+1 = borne off), in the mover's own numbering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Start square; 0 means the piece enters from off the board.
    pub from: u8,
    /// End square; L+1 means the piece is borne off.
    pub to: u8,
}

/// What a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The position after the move, with the turn set to whoever moves next.
    pub position: Position,
    /// The mover rolls again (the turn stays with them).
    pub extra_roll: bool,
    /// An opponent piece was sent back off the board.
    pub captured: bool,
}

impl RuleSet {
    /// Every legal move for the side to move with `roll`, ordered by
    /// destination square. Empty when the roll is 0, nothing can move, or the
    /// game is over: the turn then passes ([`RuleSet::pass`]).
    #[inline]
    pub fn legal_moves(&self, position: &Position, roll: u8) -> MoveList<Move> {
        let mut list = MoveList::new();
        if roll == 0 || roll >= 32 || self.winner(position).is_some() {
            return list;
        }
        let me = position.turn;
        let mine = position.sides[me.index()];
        let theirs = position.sides[(!me).index()];
        let tables = &self.tables[me];
        // Bit 0 stands for the waiting pieces: entering is a move from square 0.
        let sources = mine.squares | u32::from(mine.waiting > 0);
        let mut targets = (sources << roll) & self.landing_mask & !mine.squares;
        if self.marks_are_safe() {
            let opponents = tables.opponent_in_my_numbering(theirs.squares);
            targets &= !(opponents & tables.marks);
        }
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            list.push(Move {
                from: to - roll,
                to,
            });
        }
        list
    }

    /// Plays a legal move (from [`RuleSet::legal_moves`]) for the side to move.
    #[inline]
    pub fn apply(&self, position: &Position, mv: Move) -> Outcome {
        let me = position.turn;
        let mut sides = position.sides;
        let tables = &self.tables[me];
        let mut captured = false;
        let mut extra_roll = false;
        {
            let [a, b] = &mut sides;
            let (mine, theirs) = if me.index() == 0 { (a, b) } else { (b, a) };
            debug_assert!(mv.to > mv.from && mv.to <= self.off());
            if mv.from == 0 {
                debug_assert!(mine.waiting > 0);
                mine.waiting -= 1;
            } else {
                debug_assert!(mine.squares >> mv.from & 1 != 0);
                mine.squares &= !(1 << mv.from);
            }
            if mv.to == self.off() {
                mine.scored += 1;
            } else {
                debug_assert!(mine.squares >> mv.to & 1 == 0);
                mine.squares |= 1 << mv.to;
                let their_square = tables.opp_square[mv.to as usize];
                if their_square != 0 && theirs.squares >> their_square & 1 != 0 {
                    theirs.squares &= !(1 << their_square);
                    theirs.waiting += 1;
                    captured = true;
                }
                // Bearing off never gives another roll; a winning move is
                // always a bearing off, so it never does either.
                extra_roll = self.marks_give_extra_roll() && tables.marks >> mv.to & 1 != 0;
            }
        }
        let turn = if extra_roll { me } else { !me };
        Outcome {
            position: Position { sides, turn },
            extra_roll,
            captured,
        }
    }

    /// The position after the side to move passes (a roll of 0 or no legal move).
    #[inline]
    pub fn pass(&self, position: &Position) -> Position {
        position.with_turn(!position.turn)
    }
}
