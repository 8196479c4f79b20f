//! A training run: the loop, its folder, checkpoints, TensorBoard scalars
//! and evaluations.
//!
//! The folder holds `config.json` (the resolved settings, rule set and code
//! version), `checkpoint.bin` (written atomically every few minutes and at
//! the end), `current.safetensors` (the latest weights as a model file),
//! `evals.jsonl` (one line per evaluation) and `tb/` (TensorBoard event
//! files, one sub-folder per process so a resumed run never overwrites the
//! events of the run before). While a process trains it holds an exclusive
//! lock on `run.lock` there, so a second process on the same folder (a
//! `--resume` started while the run still goes) is refused rather than
//! training alongside it from the same checkpoint.
//!
//! Rounds: the games of round r + 1 are played (rayon, both cores) with the
//! network as it was before round r's update, while the learner trains on
//! round r's positions (on a thread of its own, so that its sums add up
//! in the same order every run). Everything follows from the seed and the
//! round number, and a checkpoint keeps the network the next round's games are
//! played with, so a resumed run continues exactly as the uninterrupted one
//! would have.
//!
//! Its files, each with one job, each importing only those above it:
//! `error` (why a run stops, atomic writes), `seeds` (every random stream
//! from the run's seed), `folder` (the run folder and what it records),
//! `checkpoint` (the checkpoint format), `network` (the learner's network
//! and one round's gradient pass), `options` (what a run is given and
//! reports), `evaluate` (the evaluation matches) and `trainer` (the loop).

mod checkpoint;
mod error;
mod evaluate;
pub mod exchange;
mod folder;
mod network;
mod options;
mod seeds;
mod shard;
mod trainer;

pub use checkpoint::{CHECKPOINT_MAGIC, CHECKPOINT_VERSION};
pub use error::TrainError;
pub use folder::{Counters, Evaluation, MAX_EVALS_BYTES, RunFolder, RunRecord, code_version};
pub use options::{Measures, RunOptions, Sharing, Status};
pub use shard::{Served, serve};
pub use trainer::train;
