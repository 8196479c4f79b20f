//! Making opponents: the exact solver for the race family, and neural
//! training (self-play TD(λ), distillation from solved tables) with burn.

pub mod checkpoint;
mod extrapolation;
mod margins;
mod memory;
pub mod neural;
mod record;
pub mod solver;
