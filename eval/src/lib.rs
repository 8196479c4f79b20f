//! Measuring agents, in three rooms of one job each:
//!
//! * [`arena`]: games played and kept (entrants and outside bots, the game
//!   loop, matches, tournaments, results files);
//! * [`ratings`]: what the games say (Elo with intervals, luck-adjusted
//!   scores, SPRT, crosstables, tables and charts);
//! * [`study`]: what games and rule sets teach (loss per move, the review's
//!   picture, puzzles, the variant report).
//!
//! Beneath them, [`stats`]: scores with intervals and their Elo, used by
//! all three. The rooms import downwards only: study and ratings use the
//! arena, the arena uses neither (`arena_imports_neither_ratings_nor_study`
//! in `agents/tests/all/imports.rs` keeps it so).
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod arena;
pub mod ratings;
pub mod stats;
pub mod study;
