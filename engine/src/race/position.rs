//! Race positions: validated once from a loose [`Setup`], trusted after.

use super::rules::{Cell, RuleSet};
use crate::player::{ByPlayer, Player};
use thiserror::Error;

/// One side's pieces: a bitset of occupied squares in its own numbering
/// (bit s = square s, 1..=L), plus the waiting and borne-off counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side {
    pub(crate) squares: u32,
    pub(crate) waiting: u8,
    pub(crate) scored: u8,
}

impl Side {
    /// Pieces waiting to enter.
    #[inline]
    pub fn waiting(&self) -> u8 {
        self.waiting
    }

    /// Pieces borne off.
    #[inline]
    pub fn scored(&self) -> u8 {
        self.scored
    }

    /// Occupied squares as a bitset (bit s set = a piece on square s).
    #[inline]
    pub fn square_bits(&self) -> u32 {
        self.squares
    }

    /// The highest square a piece stands on (the side's most advanced
    /// piece), if any is on the board.
    #[inline]
    pub fn leader(&self) -> Option<u8> {
        (self.squares != 0).then(|| (31 - self.squares.leading_zeros()) as u8)
    }

    /// Whether a piece stands on `square`.
    #[inline]
    pub fn has(&self, square: u8) -> bool {
        square < 32 && self.squares >> square & 1 != 0
    }

    /// Pieces on the board.
    #[inline]
    pub fn on_board(&self) -> u8 {
        self.squares.count_ones() as u8
    }

    /// Occupied squares, ascending.
    pub fn squares(&self) -> impl Iterator<Item = u8> + use<> {
        crate::bits::squares_of(self.squares)
    }
}

/// A race position: both sides and the side to move.
///
/// Only [`RuleSet::position`] (and the rules' own move application) make
/// positions, so every `Position` is valid for the rule set it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub(crate) sides: [Side; 2],
    pub(crate) turn: Player,
}

impl Position {
    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Player {
        self.turn
    }

    /// A player's pieces.
    #[inline]
    pub fn side(&self, player: Player) -> &Side {
        &self.sides[player.index()]
    }

    /// The same position with the colours exchanged (light's pieces become
    /// dark's on the same-numbered squares, and the turn passes to the other
    /// colour). Valid because every rule set treats both players alike.
    #[inline]
    pub fn flipped(&self) -> Position {
        Position {
            sides: [self.sides[1], self.sides[0]],
            turn: !self.turn,
        }
    }

    /// The same pieces with the other side to move.
    #[inline]
    pub fn with_turn(&self, turn: Player) -> Position {
        Position { turn, ..*self }
    }

    /// The same position with `player`'s most advanced piece borne off:
    /// its piece on the highest square, or a waiting one when it has none
    /// on the board; `None` when it has borne off every piece. Valid while
    /// the other player has a piece left (the solver's first estimate of a
    /// position reads the solved positions this gives).
    pub fn with_leader_borne_off(&self, player: Player) -> Option<Position> {
        let mut next = *self;
        let side = &mut next.sides[player.index()];
        if let Some(leader) = side.leader() {
            side.squares &= !(1 << leader);
        } else if side.waiting > 0 {
            side.waiting -= 1;
        } else {
            return None;
        }
        side.scored += 1;
        Some(next)
    }

    /// The loose description of this position.
    pub fn to_setup(&self) -> Setup {
        Setup {
            turn: self.turn,
            sides: ByPlayer::from_fn(|p| SideSetup {
                waiting: self.side(p).waiting,
                scored: self.side(p).scored,
                squares: self.side(p).squares().collect(),
            }),
        }
    }
}

/// One side of a [`Setup`]: not yet checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideSetup {
    /// Pieces waiting to enter.
    pub waiting: u8,
    /// Pieces borne off.
    pub scored: u8,
    /// Occupied squares in this player's own numbering (any order).
    pub squares: Vec<u8>,
}

/// A position as read from outside, before validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The side to move.
    pub turn: Player,
    /// Both sides.
    pub sides: ByPlayer<SideSetup>,
}

/// Why a setup is not a valid position of a rule set.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// A square outside 1..=L.
    #[error("{player} has a piece on square {square}, but squares run from 1 to {len}")]
    SquareOutOfRange {
        /// Whose piece.
        player: Player,
        /// The square given.
        square: u32,
        /// Route length.
        len: u8,
    },
    /// The same square listed twice.
    #[error("{player} lists square {square} twice")]
    DuplicateSquare {
        /// Whose piece.
        player: Player,
        /// The square.
        square: u8,
    },
    /// Waiting + on board + scored is not the piece count.
    #[error(
        "{player} has {waiting} waiting + {on_board} on the board + {scored} borne off = {total} pieces, but the rule set has {pieces}"
    )]
    PieceCount {
        /// Whose pieces.
        player: Player,
        /// Waiting count.
        waiting: u32,
        /// Pieces on the board.
        on_board: u32,
        /// Borne-off count.
        scored: u32,
        /// Their sum.
        total: u32,
        /// Pieces per side in the rule set.
        pieces: u8,
    },
    /// Two pieces on one cell, seen through both routes' numberings.
    #[error(
        "light's square {light_square} and dark's square {dark_square} are the same cell {cell}: two pieces cannot share a cell"
    )]
    SharedCell {
        /// Light's square number.
        light_square: u8,
        /// Dark's square number.
        dark_square: u8,
        /// The cell.
        cell: Cell,
    },
    /// Both sides have borne off every piece.
    #[error("both sides have borne off all their pieces; only one side can win")]
    BothWon,
    /// More than one of the faults above, every one named (in the order
    /// checked: each side's squares and count, shared cells, then the
    /// winners).
    #[error("{}", crate::text::joined_faults(.0))]
    Several(Vec<PositionError>),
}

impl RuleSet {
    /// The starting position: every piece waiting, light to move.
    pub fn start(&self) -> Position {
        self.start_with(Player::Light)
    }

    /// The starting position with `first` to move.
    pub fn start_with(&self, first: Player) -> Position {
        let side = Side {
            squares: 0,
            waiting: self.pieces(),
            scored: 0,
        };
        Position {
            sides: [side; 2],
            turn: first,
        }
    }

    /// Checks a setup against this rule set and makes it a position.
    ///
    /// # Examples
    ///
    /// Light has two pieces on the board, dark one borne off; a setup with a
    /// piece too many is refused, and the error says what is wrong:
    ///
    /// ```
    /// use sawah_engine::race::{self, Setup, SideSetup};
    /// use sawah_engine::{ByPlayer, Player};
    ///
    /// let ur = race::preset("ur").unwrap();
    /// let setup = Setup {
    ///     turn: Player::Dark,
    ///     sides: ByPlayer::from_fn(|player| match player {
    ///         Player::Light => SideSetup { waiting: 5, scored: 0, squares: vec![4, 8] },
    ///         Player::Dark => SideSetup { waiting: 6, scored: 1, squares: vec![] },
    ///     }),
    /// };
    /// let position = ur.position(&setup).unwrap();
    /// assert_eq!(position.turn(), Player::Dark);
    /// assert_eq!(position.side(Player::Light).on_board(), 2);
    /// assert_eq!(position.to_setup(), setup);
    ///
    /// let mut wrong = setup.clone();
    /// wrong.sides[Player::Light].waiting = 6;
    /// let error = ur.position(&wrong).unwrap_err();
    /// assert!(error.to_string().contains("but the rule set has 7"), "{error}");
    /// ```
    pub fn position(&self, setup: &Setup) -> Result<Position, PositionError> {
        let len = self.route_len();
        let mut faults = Vec::new();
        let mut sides = [Side::default(); 2];
        for player in Player::BOTH {
            let given = &setup.sides[player];
            let mut bits = 0u32;
            let mut squares_valid = true;
            for &square in &given.squares {
                if square == 0 || square > len {
                    faults.push(PositionError::SquareOutOfRange {
                        player,
                        square: square.into(),
                        len,
                    });
                    squares_valid = false;
                } else if bits >> square & 1 != 0 {
                    faults.push(PositionError::DuplicateSquare { player, square });
                    squares_valid = false;
                } else {
                    bits |= 1 << square;
                }
            }
            let on_board = bits.count_ones();
            let total = u32::from(given.waiting) + on_board + u32::from(given.scored);
            // With a square wrong, the count is wrong with it: not a fault
            // of its own.
            if squares_valid && total != u32::from(self.pieces()) {
                faults.push(PositionError::PieceCount {
                    player,
                    waiting: given.waiting.into(),
                    on_board,
                    scored: given.scored.into(),
                    total,
                    pieces: self.pieces(),
                });
            }
            sides[player.index()] = Side {
                squares: bits,
                waiting: given.waiting,
                scored: given.scored,
            };
        }
        let light = sides[0];
        let dark = sides[1];
        let mut clash = self.tables.light.opponent_in_my_numbering(dark.squares) & light.squares;
        while clash != 0 {
            let light_square = clash.trailing_zeros() as u8;
            clash &= clash - 1;
            let dark_square = self.tables.light.opp_square[light_square as usize];
            faults.push(PositionError::SharedCell {
                light_square,
                dark_square,
                cell: self.cell(Player::Light, light_square),
            });
        }
        if light.scored == self.pieces() && dark.scored == self.pieces() {
            faults.push(PositionError::BothWon);
        }
        crate::text::one_or_several(faults, PositionError::Several)?;
        Ok(Position {
            sides,
            turn: setup.turn,
        })
    }

    /// The winner, if a side has borne off every piece.
    #[inline]
    pub fn winner(&self, position: &Position) -> Option<Player> {
        if position.sides[0].scored == self.pieces() {
            Some(Player::Light)
        } else if position.sides[1].scored == self.pieces() {
            Some(Player::Dark)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(waiting: u8, scored: u8, squares: &[u8]) -> SideSetup {
        SideSetup {
            waiting,
            scored,
            squares: squares.to_vec(),
        }
    }

    #[test]
    fn the_leader_borne_off_is_the_highest_piece_else_a_waiting_one() {
        let rules = crate::race::preset("sawah").expect("sawah is a preset");
        let setup = |light: SideSetup, dark: SideSetup| Setup {
            turn: Player::Light,
            sides: ByPlayer::from_fn(|p| if p == Player::Light { &light } else { &dark }.clone()),
        };
        let position = |light, dark| rules.position(&setup(light, dark)).expect("valid");
        let before = position(side(4, 1, &[3, 7]), side(7, 0, &[]));
        assert_eq!(before.side(Player::Light).leader(), Some(7));
        assert_eq!(before.side(Player::Dark).leader(), None);
        assert_eq!(
            before.with_leader_borne_off(Player::Light),
            Some(position(side(4, 2, &[3]), side(7, 0, &[])))
        );
        assert_eq!(
            before.with_leader_borne_off(Player::Dark),
            Some(position(side(4, 1, &[3, 7]), side(6, 1, &[])))
        );
        let done = position(side(0, 7, &[]), side(6, 0, &[5]));
        assert_eq!(done.with_leader_borne_off(Player::Light), None);
    }
}
