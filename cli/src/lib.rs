#![doc = include_str!("../../README.md")]
//! The `sawah` command's building blocks: the bot protocol, terminal play,
//! board drawings, benchmarks, and the tournament, Elo and SPRT commands. `main.rs` only parses arguments.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod commands;
pub mod digest;
pub mod entrants;
pub mod luck;
pub mod models;
pub mod progress;
pub mod render;
