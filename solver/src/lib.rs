//! The exact solver: the win probability for the side to move of every
//! position of a race rule set, by value iteration over score layers.
//!
//! `V(s) = Σ_r P(r) · max over moves of the successor's value`, where a
//! successor with the same side to move (an extra roll) counts as is, one
//! where the turn passed as `1 − V`, a win as 1, and a roll with no move
//! passes (`1 − V` of the same pieces with the opponent to move). Scores
//! never decrease, so layers (mover's borne-off count `a`, opponent's `b`)
//! are solved from the highest total down; a layer and its mirror `(b, a)`
//! depend on each other (passes and moves hand the turn over) and, through
//! captures, on themselves, so each such pair is iterated to a fixed point:
//! in-place (Gauss–Seidel) sweeps, parallel over the index's blocks, until a
//! full residual pass, which only reads, shows `max |T(V) − V| ≤ tolerance`.
//!
//! The crate depends on the engine (the rules and the position index),
//! `sawah-agents` (its atomic file writes, for checkpoints), rayon, libc
//! (huge pages), serde_json (checkpoint headers) and thiserror. Its modules, each
//! with one job: `solve` (the public API: options, reports, the solution,
//! errors, the walk over layer pairs), `values` (the shared value array and
//! first estimates), `policy` (rolls, records of candidate successors,
//! Bellman parts), `plan` (how a pair's moves are recorded and the policy
//! memory), `sweeps` (evaluating a policy in place), `pair` (one layer pair
//! by modified policy iteration), `record` (the records' word layout),
//! `margins` (when recorded candidates and choices may stand in for every
//! move), `partial` (which late layers a partial solve takes), `extrapolation`, `memory` (huge pages, zero pages, peak memory)
//! and `checkpoint` (per-pair files). See docs/solver.md.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod checkpoint;
mod extrapolation;
mod margins;
mod memory;
mod options;
mod pair;
pub mod partial;
mod plan;
mod policy;
mod record;
pub mod senet_endgame;
mod solve;
mod sweeps;
#[cfg(test)]
mod tests;
mod values;

pub use memory::peak_resident_bytes;
pub use solve::{
    LayerReport, Solution, SolveError, SolveOptions, solve, solve_layers, solve_with_checkpoints,
    sweep_bound,
};
