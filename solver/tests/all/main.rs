//! The integration tests of `solver`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod checkpoint;
mod senet_endgame;
mod solver;
mod table;
