//! The integration tests of `eval`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod analysis;
mod common;
mod luck;
mod luck_tournament;
mod puzzles;
mod review;
