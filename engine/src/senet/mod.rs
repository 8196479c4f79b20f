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
