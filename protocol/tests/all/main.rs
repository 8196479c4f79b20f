//! The integration tests of `protocol`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod dial;
mod memory;
mod puzzles;
mod review;
mod typed;
