#![doc = include_str!("../../README.md")]
//! The `sawah` command's building blocks: the bot protocol, terminal play,
//! board drawings, benchmarks, and the tournament, Elo and SPRT commands. `main.rs` only parses arguments.

pub mod bench;
pub mod bot;
pub mod commands;
pub mod describe;
pub mod entrants;
pub mod luck;
pub mod models;
pub mod play;
pub mod progress;
pub mod render;
pub mod solve;
pub mod tournament;
pub mod train;
