//! Neural training with burn: the value network, self-play TD(λ),
//! distillation from solved tables and targets from search (`backup`), runs with checkpoints and TensorBoard
//! logs, and export to the model files the agents load.

pub mod backup;
pub mod config;
pub mod export;
pub mod heuristic;
pub mod net;
pub mod run;
pub mod selfplay;

pub use config::{Mode, TrainConfig};
pub use run::{RunFolder, RunOptions, Status, train};
