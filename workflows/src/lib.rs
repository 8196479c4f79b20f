//! The long jobs behind the `sawah` command, as a library that the CLI,
//! the Python package or a service can call: the levels build, tournaments
//! and matches, solves, puzzle mining, reviews and variant reports, with
//! the files and bots they read.
//!
//! Each job takes one options struct. Where a job is also a subcommand,
//! that struct derives `clap::Args`, so a flag and its option are named
//! once; a caller builds it like any struct. The `sawah` command (crate
//! `sawah-cli`) adds the subcommand list, terminal play, the bot's line
//! loop and the server's start-up. docs/architecture.md says why the split
//! falls there.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod bots;
pub mod columns;
pub mod digest;
pub mod entrants;
pub mod game_file;
pub mod levels;
pub mod luck;
pub mod matches;
pub mod measure;
pub mod models;
pub mod output_path;
pub mod progress;
pub mod puzzles;
pub mod render;
pub mod report;
pub mod results_lines;
pub mod review;
pub mod review_text;
pub mod sharing;
pub mod solve;
pub mod tournament;
