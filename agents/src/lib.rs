//! Computer opponents: the agent interface, random, heuristic and
//! expectiminimax agents, evaluators, and strength as configuration.
//!
//! No threads and no training here, so the crate builds for WebAssembly.

pub mod agent;
pub mod evaluator;
pub mod heuristic;
pub mod sample;
pub mod search;
pub mod spec;

pub use agent::{Agent, Choice, RandomAgent, SearchAgent};
pub use evaluator::{Evaluator, NoisyEvaluator};
pub use heuristic::HasHeuristic;
pub use spec::{AgentSpec, SpecError};
