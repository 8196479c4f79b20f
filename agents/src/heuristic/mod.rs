//! Hand-made evaluations from the features a strong player weighs, one per
//! game family, combined by a logistic function of weighted features. The
//! weights are data ([`Weights`]) so that training can learn them.

mod race;
mod senet;

pub use race::RaceHeuristic;
pub use senet::SenetHeuristic;

use crate::agent::Agent;
use crate::evaluator::Evaluator;
use crate::spec::SpecError;
use sawah_engine::Game;
use std::path::Path;

/// Feature weights: `value = sigmoid(bias + Σ weight_i · feature_i)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Names of the features, in order (for logs and files).
    pub names: &'static [&'static str],
    /// The constant term (the side to move's edge).
    pub bias: f64,
    /// One weight per feature.
    pub weights: Vec<f64>,
}

impl Weights {
    /// The logistic combination of `features` (as many as there are weights).
    #[inline]
    pub fn value(&self, features: &[f64]) -> f64 {
        debug_assert_eq!(features.len(), self.weights.len());
        let z = self.bias
            + self
                .weights
                .iter()
                .zip(features)
                .map(|(w, f)| w * f)
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// A game family that has a hand-made evaluation.
pub trait HasHeuristic: Game + crate::neural::Encode + sawah_engine::Codec + Sized {
    /// The evaluation type.
    type Heuristic: Evaluator<Self> + Clone + Send + Sync + 'static;
    /// The evaluation with its default weights for this rule set.
    fn heuristic(&self) -> Self::Heuristic;

    /// A perfect agent playing from the solved table at `table`, where the
    /// family has exact solutions.
    fn perfect_agent(&self, table: &Path) -> Result<Box<dyn Agent<Self> + Send>, SpecError> {
        let _ = table;
        Err(SpecError::NoPerfectPlay(self.name().to_string()))
    }
}

impl HasHeuristic for sawah_engine::race::RuleSet {
    type Heuristic = RaceHeuristic;
    fn heuristic(&self) -> RaceHeuristic {
        RaceHeuristic::default()
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn perfect_agent(&self, table: &Path) -> Result<Box<dyn Agent<Self> + Send>, SpecError> {
        let table =
            crate::table::Table::open(table, self).map_err(|e| SpecError::Table(e.to_string()))?;
        Ok(Box::new(crate::perfect::PerfectAgent::new(
            std::sync::Arc::new(table),
        )))
    }
}

impl HasHeuristic for sawah_engine::senet::Senet {
    type Heuristic = SenetHeuristic;
    fn heuristic(&self) -> SenetHeuristic {
        SenetHeuristic::default()
    }
}
