#![doc = include_str!("../../README.md")]
//! The `sawah` command's own parts: the subcommand arguments that are not
//! a workflow's options, terminal play, the bot protocol's line loop, the
//! server's start-up, benchmarks and training runs. The long jobs live in
//! `sawah-workflows`; `main.rs` only parses arguments and dispatches.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod commands;
