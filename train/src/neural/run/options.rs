//! What a run is given besides the game, and what it reports each round.

use crate::neural::config::TrainConfig;
use crate::neural::run::folder::{Counters, Evaluation, RunFolder};
use sawah_agents::neural::NeuralNet;
use std::path::Path;

/// What the observer hears after each round.
#[derive(Clone, Debug)]
pub struct Status {
    /// Counters so far.
    pub counters: Counters,
    /// Mean squared error of the last round.
    pub loss: f64,
    /// Mean |target − prediction| of the last round's positions.
    pub td_error: f64,
    /// The evaluation made this round, if any.
    pub evaluation: Option<Evaluation>,
}
/// Extra measures of a network at evaluation time (e.g. loss per move
/// against a solved table): name and value.
pub type Measures<'a> = &'a (dyn Fn(&NeuralNet, &Path) -> Vec<(String, f64)> + Sync);
/// Everything the loop needs besides the game.
pub struct RunOptions<'a, G: sawah_engine::Game> {
    /// The run folder.
    pub folder: RunFolder,
    /// The settings (ignored on resume: the folder's are used).
    pub config: TrainConfig,
    /// Continue the run in the folder.
    pub resume: bool,
    /// Exact values for distillation.
    pub teacher: Option<crate::neural::selfplay::Teacher<'a, G::Position>>,
    /// Exact values where known (a Senet endgame table): self-play games
    /// stop there with that value (see [`crate::neural::selfplay::Exact`]).
    pub exact: Option<crate::neural::selfplay::Exact<'a, G::Position>>,
    /// Opponents at each evaluation (specs).
    pub opponents: Vec<String>,
    /// Extra measures at each evaluation.
    pub measures: Option<Measures<'a>>,
    /// Called after every round.
    pub observe: &'a mut dyn FnMut(&Status),
    /// The rounds' games shared out to shard processes (`sawah train
    /// --shards N`, `sawah train-shard`), or `None` to play them here.
    pub sharing: Option<Sharing>,
}

/// How a run shares its rounds out (see [`crate::neural::run::exchange`]).
/// It never changes what is trained, only where the games are played.
#[derive(Clone, Debug)]
pub struct Sharing {
    /// Shards a round is shared among.
    pub shards: u64,
    /// The longest the learner waits for a share after publishing a round
    /// (while its shard beats) before playing it itself.
    pub wait: std::time::Duration,
    /// A race rule set's description, written for the shards.
    pub rules_spec: Option<sawah_engine::race::RuleSpec>,
}
