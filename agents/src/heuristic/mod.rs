//! Hand-made evaluations from the features a strong player weighs, one per
//! game family, combined by a logistic function of weighted features. The
//! weights are data ([`Weights`]) so that training can learn them.

mod race;
mod senet;
mod weights;

pub use race::RaceHeuristic;
pub use senet::SenetHeuristic;
pub use weights::{WEIGHTS_FORMAT, Weights, WeightsFile};

use crate::agent::Agent;
use crate::assets::Assets;
use crate::evaluator::Evaluator;
use crate::spec_error::SpecError;
pub use crate::spec_error::WeightsProblem;
use sawah_engine::Game;

/// A game family that has a hand-made evaluation.
pub trait HasHeuristic: Game + crate::neural::Encode + sawah_engine::Codec + Sized {
    /// The evaluation type.
    type Heuristic: Evaluator<Self> + Clone + Send + Sync + 'static;
    /// The evaluation with its default weights for this rule set.
    fn heuristic(&self) -> Self::Heuristic;

    /// The evaluation with other weights (as many as it has features).
    fn heuristic_with(&self, weights: Weights) -> Self::Heuristic;

    /// The evaluation's weights.
    fn heuristic_weights(heuristic: &Self::Heuristic) -> &Weights;

    /// The evaluation's features of `position`, for the side to move.
    fn heuristic_features(&self, position: &Self::Position) -> Vec<f64>;

    /// The evaluation with the weights of a weights file (see
    /// [`WeightsFile`]), checked against this rule set's features; `shown`
    /// names the file in errors.
    fn heuristic_from_json(&self, text: &str, shown: &str) -> Result<Self::Heuristic, SpecError> {
        let fail = |problem| SpecError::Weights {
            file: shown.to_string(),
            problem,
        };
        let file: WeightsFile = serde_json::from_str(text)
            .map_err(|e| fail(WeightsProblem::NotJson(std::sync::Arc::new(e))))?;
        let default = self.heuristic();
        let names = Self::heuristic_weights(&default).names;
        if file.format != WEIGHTS_FORMAT {
            return Err(fail(WeightsProblem::NotWeights));
        }
        if file.rules != self.name() {
            return Err(fail(WeightsProblem::OtherRules {
                found: file.rules,
                expected: self.name().to_string(),
            }));
        }
        if file.features != names || file.weights.len() != names.len() {
            return Err(fail(WeightsProblem::OtherFeatures {
                found: file.features,
                expected: names,
            }));
        }
        if !file.bias.is_finite() || file.weights.iter().any(|w| !w.is_finite()) {
            return Err(fail(WeightsProblem::NotFinite));
        }
        Ok(self.heuristic_with(Weights {
            names,
            bias: file.bias,
            weights: file.weights,
        }))
    }

    /// The evaluation with the weights of the weights file `name` in `assets`.
    fn heuristic_from_assets(
        &self,
        name: &str,
        assets: &dyn Assets,
    ) -> Result<Self::Heuristic, SpecError> {
        self.heuristic_from_json(&assets.weights(name)?, name)
    }

    /// A perfect agent playing from the solved table `table` in `assets`,
    /// where the family has exact solutions.
    fn perfect_agent(
        &self,
        table: &str,
        assets: &dyn Assets,
    ) -> Result<Box<dyn Agent<Self> + Send>, SpecError> {
        let _ = (table, assets);
        Err(SpecError::NoPerfectPlay(self.name().to_string()))
    }

    /// `evaluator` with the exact values of the endgame table `table` in
    /// `assets` where it covers a position, where the family has endgame
    /// tables (Senet: the race rule sets are solved whole).
    fn with_endgames(
        &self,
        evaluator: Box<dyn Evaluator<Self> + Send>,
        table: &str,
        assets: &dyn Assets,
    ) -> Result<Box<dyn Evaluator<Self> + Send>, SpecError> {
        let _ = (evaluator, table, assets);
        Err(SpecError::NoEndgames(self.name().to_string()))
    }
}

impl HasHeuristic for sawah_engine::race::RuleSet {
    type Heuristic = RaceHeuristic;
    fn heuristic(&self) -> RaceHeuristic {
        RaceHeuristic::default()
    }

    fn heuristic_with(&self, weights: Weights) -> RaceHeuristic {
        RaceHeuristic { weights }
    }

    fn heuristic_weights(heuristic: &RaceHeuristic) -> &Weights {
        &heuristic.weights
    }

    fn heuristic_features(&self, position: &sawah_engine::race::Position) -> Vec<f64> {
        RaceHeuristic::features(self, position).to_vec()
    }

    fn perfect_agent(
        &self,
        table: &str,
        assets: &dyn Assets,
    ) -> Result<Box<dyn Agent<Self> + Send>, SpecError> {
        let table = assets.table(table, self)?;
        Ok(Box::new(crate::perfect::PerfectAgent::new(table)))
    }
}

impl HasHeuristic for sawah_engine::senet::Senet {
    type Heuristic = SenetHeuristic;
    fn heuristic(&self) -> SenetHeuristic {
        SenetHeuristic::default()
    }

    fn heuristic_with(&self, weights: Weights) -> SenetHeuristic {
        SenetHeuristic { weights }
    }

    fn heuristic_weights(heuristic: &SenetHeuristic) -> &Weights {
        &heuristic.weights
    }

    fn heuristic_features(&self, position: &sawah_engine::senet::Position) -> Vec<f64> {
        SenetHeuristic::features(position).to_vec()
    }

    fn with_endgames(
        &self,
        evaluator: Box<dyn Evaluator<Self> + Send>,
        table: &str,
        assets: &dyn Assets,
    ) -> Result<Box<dyn Evaluator<Self> + Send>, SpecError> {
        let table = assets.endgame_table(table)?;
        Ok(Box::new(crate::endgame::EndgameEvaluator::new(
            table, evaluator,
        )))
    }
}
