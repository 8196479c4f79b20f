//! Computer opponents: the agent interface, random, heuristic and
//! expectiminimax agents, evaluators, and strength as configuration.
//!
//! No threads and no training here, so the crate builds for WebAssembly.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

// Three rooms, each findable and changeable alone; no file imports a file
// that imports it back (tests/imports.rs checks it).
//
// Playing: what decides and evaluates moves.
pub mod agent;
pub mod evaluator;
pub mod heuristic;
pub mod neural;
pub mod perfect;
pub mod search;
pub mod spec;
pub mod spec_error;
pub mod spec_object;

// Files: solved and endgame tables, where files come from, the shipped
// models and their manifest, identities for results.
pub mod assets;
pub mod endgame;
#[cfg(not(target_arch = "wasm32"))]
pub mod files;
#[cfg(not(target_arch = "wasm32"))]
pub mod identity;
pub mod manifest;
#[cfg(feature = "shipped")]
pub mod shipped;
pub mod table;

// Analysis: reviews, hints, strength estimates and puzzles.
pub mod hint;
pub mod puzzle;
pub mod review;
pub mod strength;

pub use agent::{Agent, Choice, Failure, FailureKind, RandomAgent, SearchAgent};
pub use assets::{Assets, MemoryAssets};
pub use evaluator::{Evaluator, NoisyEvaluator};
pub use heuristic::HasHeuristic;
pub use spec::{AgentSpec, Levels, NoLevels, SpecError};
