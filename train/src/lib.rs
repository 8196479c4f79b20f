//! Making opponents: neural training (self-play TD(λ), distillation from
//! solved tables) with burn. The exact solver is the `sawah-solver` crate;
//! training reads its tables through `sawah_agents::table`.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod neural;
