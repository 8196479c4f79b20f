//! Senet after Timothy Kendall, as played on Sawah (RULES.md §2).
//!
//! Both players run the same path of 30 houses, drawn in three rows of ten
//! (1–10 left to right, 11–20 right to left, 21–30 left to right). Positions
//! are a bitset of houses per side (bit s = house s) and a borne-off count.

mod board;
pub mod daily;
pub mod endgame;
mod moves;
mod position;

pub use board::{
    BEAUTY, HOUSES, NAME, OFF, PIECES, REBIRTH, SAFE, Senet, WATER, house_cell, house_name,
};
pub use moves::Move;
pub use position::{Position, PositionError, Side};

use crate::player::Player;

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
