//! The integration tests of `cli`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod bot;
mod cli;
mod common;
mod docs;
mod hostile_bots;
mod levels;
mod outside;
#[cfg(unix)]
mod pipes;
mod play;
mod puzzles;
mod report;
mod review_memory;
mod rgn;
mod serve;
mod strength;
mod tls;
mod tour;
mod tournament;
mod train;
