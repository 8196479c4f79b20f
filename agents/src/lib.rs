//! Computer opponents: the agent interface, random, heuristic and
//! expectiminimax agents, evaluators, and strength as configuration.
//!
//! No threads and no training here, so the crate builds for WebAssembly.

pub mod agent;
pub mod assets;
pub mod endgame;
pub mod evaluator;
#[cfg(not(target_arch = "wasm32"))]
pub mod files;
pub mod heuristic;
pub mod hint;
#[cfg(not(target_arch = "wasm32"))]
pub mod identity;
pub mod manifest;
pub mod neural;
pub mod perfect;
pub mod puzzle;
pub mod review;
pub mod search;
#[cfg(feature = "shipped")]
pub mod shipped;
pub mod spec;
pub mod strength;
pub mod table;

pub use agent::{Agent, Choice, RandomAgent, SearchAgent};
pub use assets::{Assets, MemoryAssets};
pub use evaluator::{Evaluator, NoisyEvaluator};
pub use heuristic::HasHeuristic;
pub use spec::{AgentSpec, Levels, NoLevels, SpecError};
