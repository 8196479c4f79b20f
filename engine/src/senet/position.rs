//! Senet positions, validated once.

use super::board::{HOUSES, PIECES, Senet, WATER};
use crate::player::{ByPlayer, Player};
use thiserror::Error;

/// One side: a bitset of occupied houses (bit s = house s) and the borne-off count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side {
    pub(crate) squares: u32,
    pub(crate) scored: u8,
}

impl Side {
    pub(crate) const fn from_parts(squares: u32, scored: u8) -> Side {
        Side { squares, scored }
    }

    /// Occupied houses as a bitset.
    #[inline]
    pub fn square_bits(&self) -> u32 {
        self.squares
    }

    /// Pieces borne off.
    #[inline]
    pub fn scored(&self) -> u8 {
        self.scored
    }

    /// Pieces on the board.
    #[inline]
    pub fn on_board(&self) -> u8 {
        self.squares.count_ones() as u8
    }

    /// Whether a piece stands on `house`.
    #[inline]
    pub fn has(&self, house: u8) -> bool {
        house < 32 && self.squares >> house & 1 != 0
    }

    /// Occupied houses, ascending.
    pub fn squares(&self) -> impl Iterator<Item = u8> + use<> {
        crate::bits::squares_of(self.squares)
    }
}

/// A Senet position: both sides and the side to throw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub(crate) sides: [Side; 2],
    pub(crate) turn: Player,
}

impl Position {
    pub(crate) const fn from_parts(sides: [Side; 2], turn: Player) -> Position {
        Position { sides, turn }
    }

    /// The side to throw.
    #[inline]
    pub fn turn(&self) -> Player {
        self.turn
    }

    /// A player's pieces.
    #[inline]
    pub fn side(&self, player: Player) -> &Side {
        &self.sides[player.index()]
    }

    /// The same pieces with another side to throw.
    #[inline]
    pub fn with_turn(&self, turn: Player) -> Position {
        Position { turn, ..*self }
    }
}

/// Why a description is not a valid Senet position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// A house outside 1..=30.
    #[error("{player} has a piece on house {square}, but houses run from 1 to 30")]
    SquareOutOfRange {
        /// Whose piece.
        player: Player,
        /// The house given.
        square: u32,
    },
    /// A piece on the House of Water, where no piece ever rests.
    #[error("{player} has a piece on house 27, the House of Water, where no piece ever rests")]
    PieceOnWater {
        /// Whose piece.
        player: Player,
    },
    /// The same house listed twice for one side.
    #[error("{player} lists house {square} twice")]
    DuplicateSquare {
        /// Whose piece.
        player: Player,
        /// The house.
        square: u8,
    },
    /// More than five pieces on the board for one side.
    #[error("{player} has {count} pieces on the board; each side has five pieces")]
    TooManyPieces {
        /// Whose pieces.
        player: Player,
        /// How many.
        count: usize,
    },
    /// On board + borne off is not five.
    #[error(
        "{player} has {on_board} on the board + {scored} borne off = {total} pieces; each side has five"
    )]
    PieceCount {
        /// Whose pieces.
        player: Player,
        /// On the board.
        on_board: u32,
        /// Borne off.
        scored: u32,
        /// Their sum.
        total: u32,
    },
    /// Two pieces on one house.
    #[error("light and dark both have a piece on house {0}; a house holds one piece")]
    SameSquare(u8),
    /// Both sides have borne off everything.
    #[error("both sides have borne off all their pieces; only one side can win")]
    BothWon,
    /// More than one of the faults above, every one named (in the order
    /// checked: each side's houses and count, shared houses, then the
    /// winners).
    #[error("{}", crate::text::joined_faults(.0))]
    Several(Vec<PositionError>),
}

impl Senet {
    /// Checks a loose description (houses per side, borne-off counts, turn) and makes it a position.
    pub fn position(
        &self,
        turn: Player,
        squares: ByPlayer<&[u8]>,
        scored: ByPlayer<u8>,
    ) -> Result<Position, PositionError> {
        let mut faults = Vec::new();
        let mut sides = [Side::default(); 2];
        for player in Player::BOTH {
            let given = squares[player];
            let mut squares_valid = true;
            if given.len() > usize::from(PIECES) {
                faults.push(PositionError::TooManyPieces {
                    player,
                    count: given.len(),
                });
                squares_valid = false;
            }
            let mut bits = 0u32;
            for &square in given {
                let fault = if square == 0 || square > HOUSES {
                    Some(PositionError::SquareOutOfRange {
                        player,
                        square: square.into(),
                    })
                } else if square == WATER {
                    Some(PositionError::PieceOnWater { player })
                } else if bits >> square & 1 != 0 {
                    Some(PositionError::DuplicateSquare { player, square })
                } else {
                    bits |= 1 << square;
                    None
                };
                if let Some(fault) = fault {
                    faults.push(fault);
                    squares_valid = false;
                }
            }
            let on_board = bits.count_ones();
            let total = on_board + u32::from(scored[player]);
            // With a house wrong, the count is wrong with it: not a fault
            // of its own.
            if squares_valid && total != u32::from(PIECES) {
                faults.push(PositionError::PieceCount {
                    player,
                    on_board,
                    scored: scored[player].into(),
                    total,
                });
            }
            sides[player.index()] = Side {
                squares: bits,
                scored: scored[player],
            };
        }
        let mut both = sides[0].squares & sides[1].squares;
        while both != 0 {
            faults.push(PositionError::SameSquare(both.trailing_zeros() as u8));
            both &= both - 1;
        }
        if sides[0].scored == PIECES && sides[1].scored == PIECES {
            faults.push(PositionError::BothWon);
        }
        crate::text::one_or_several(faults, PositionError::Several)?;
        Ok(Position { sides, turn })
    }
}

impl Senet {
    /// The starting position: light on 1, 3, 5, 7, 9, dark on 2, 4, 6, 8, 10, light to throw.
    pub fn start(&self) -> Position {
        Position::from_parts(
            [
                Side::from_parts(0b10_1010_1010, 0),
                Side::from_parts(0b101_0101_0100, 0),
            ],
            Player::Light,
        )
    }

    /// The winner, once a side has borne off all five pieces.
    pub fn winner(&self, position: &Position) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|&p| position.side(p).scored() == PIECES)
    }

    /// Sawah's single-player score for the first player (light) of a
    /// finished game: a win scores 100 plus 10 for every opponent piece
    /// still on the board; a loss scores 5 for every own piece borne off.
    /// `None` while the game is not over.
    pub fn score(&self, position: &Position) -> Option<u32> {
        let light = position.side(Player::Light);
        let dark = position.side(Player::Dark);
        match self.winner(position)? {
            Player::Light => Some(100 + 10 * u32::from(dark.on_board())),
            Player::Dark => Some(5 * u32::from(light.scored())),
        }
    }
}
