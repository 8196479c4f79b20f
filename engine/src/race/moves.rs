//! Race move generation and application (RULES.md §1.1).

use super::position::{Position, Side};
use super::rules::{RuleSet, Tables};
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
        let mut targets = self.landing_squares_of(position, roll);
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

    /// How many legal moves the side to move has with `roll`: the length of
    /// [`RuleSet::legal_moves`], without listing them.
    #[inline]
    pub fn move_count(&self, position: &Position, roll: u8) -> u32 {
        self.landing_squares_of(position, roll).count_ones()
    }

    /// [`RuleSet::landing_squares`] of the side to move in `position`.
    #[inline]
    fn landing_squares_of(&self, position: &Position, roll: u8) -> u32 {
        let me = position.turn;
        let (mine, theirs) = (position.sides[me.index()], position.sides[(!me).index()]);
        let tables = &self.tables[me];
        // Only safe marks need the opponent's pieces (captures are `apply`'s).
        let opponents = if self.marks_are_safe() {
            tables.opponent_in_my_numbering(theirs.squares)
        } else {
            0
        };
        self.landing_squares(tables, (&mine, &theirs), opponents, roll)
    }

    /// The squares the side `mine` (to move, against `theirs`; `tables`
    /// its own) can move a piece to with `roll`, as a bitset (bit L+1:
    /// bearing off); `opponents` is `theirs`' pieces in `mine`'s numbering
    /// (read only when marks are safe).
    /// Empty when the roll is 0 or the game is over. The one statement of
    /// which moves are legal, for [`RuleSet::legal_moves`] and the index's
    /// successors.
    #[inline]
    pub(crate) fn landing_squares(
        &self,
        tables: &Tables,
        (mine, theirs): (&Side, &Side),
        opponents: u32,
        roll: u8,
    ) -> u32 {
        let pieces = self.pieces();
        if roll == 0 || roll >= 32 || mine.scored == pieces || theirs.scored == pieces {
            return 0;
        }
        // Bit 0 stands for the waiting pieces: entering is a move from square 0.
        let sources = mine.squares | u32::from(mine.waiting > 0);
        let mut targets = (sources << roll) & self.landing_mask & !mine.squares;
        if self.marks_are_safe() {
            targets &= !(opponents & tables.marks);
        }
        targets
    }

    /// Whether a piece landing on square `to` (of the side whose `tables`
    /// these are), capturing or not, gives its side another roll: on a mark
    /// where marks give one, or by capturing where captures do. Bearing off
    /// never does; a winning move is always a bearing off, so it never does
    /// either.
    #[inline]
    pub(crate) fn gives_extra_roll(&self, tables: &Tables, to: u8, captured: bool) -> bool {
        to != self.off()
            && ((self.marks_give_extra_roll() && tables.marks >> to & 1 != 0)
                || (captured && self.captures_give_extra_roll()))
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
                extra_roll = self.gives_extra_roll(tables, mv.to, captured);
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
