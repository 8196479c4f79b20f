//! Making opponents: the exact solver for the race family (self-play
//! training comes next).

pub mod checkpoint;
pub mod solver;
