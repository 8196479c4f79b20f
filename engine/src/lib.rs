//! The rules of Sawah's games (the race family and Senet): positions, moves,
//! dice, notation.
//!
//! Everything here is plain data and pure functions: no threads, no I/O
//! beyond reading a rule file, so the crate also compiles to WebAssembly.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod bits;
pub mod census;
pub mod combinatorics;
pub mod dice;
pub mod digest;
pub mod export;
pub mod files;
pub mod game;
pub mod json;
pub mod movelist;
pub mod notation;
pub mod perft;
pub mod player;
pub mod playout;
pub mod race;
pub mod record;
pub mod registry;
pub mod rgn;
pub mod seed;
pub mod senet;
pub mod tags;
pub mod text;
pub mod turns;

pub use dice::{Dice, DiceSource};
pub use game::{Game, MAX_ROLLS, Step};
pub use json::Codec;
pub use movelist::MoveList;
pub use player::{ByPlayer, Player};
pub use registry::{AnyGame, Registry};
pub use tags::{Describe, MoveTags, Tag};
