//! Neural value networks: input encodings shared with training, the model
//! file, a fast forward pass, and the evaluator that search uses.

pub mod encoding;
pub mod model;

pub use encoding::{Encode, Encoder};
pub use model::{Activation, Dense, ModelError, ModelInfo, NeuralNet};

use crate::evaluator::Evaluator;
use std::sync::Arc;

/// A network as a search evaluator.
#[derive(Clone, Debug)]
pub struct NeuralEvaluator {
    net: Arc<NeuralNet>,
}

impl NeuralEvaluator {
    /// Evaluates with `net` (checked against the game by whoever loaded it).
    pub fn new(net: Arc<NeuralNet>) -> NeuralEvaluator {
        NeuralEvaluator { net }
    }

    /// The network.
    pub fn net(&self) -> &NeuralNet {
        &self.net
    }
}

impl<G: Encode> Evaluator<G> for NeuralEvaluator {
    fn evaluate(&self, game: &G, position: &G::Position) -> f64 {
        self.net.evaluate(game, position)
    }

    /// A forward pass costs microseconds; a lookup, nanoseconds.
    fn worth_remembering(&self) -> bool {
        true
    }
}
