//! Hand-made evaluations from the features a strong player weighs, one per
//! game family, combined by a logistic function of weighted features. The
//! weights are data ([`Weights`]) so that training can learn them.

mod race;
mod senet;

pub use race::RaceHeuristic;
pub use senet::SenetHeuristic;

use crate::agent::Agent;
use crate::assets::Assets;
use crate::evaluator::Evaluator;
use crate::spec::SpecError;
use sawah_engine::Game;

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

/// What a weights file's `format` says.
pub const WEIGHTS_FORMAT: &str = "sawah-heuristic-weights-v1";

/// Learned weights of a hand-made evaluation, as JSON:
/// `{"format":"sawah-heuristic-weights-v1","rules":"ur","features":[…],"bias":…,"weights":[…]}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsFile {
    /// Always [`WEIGHTS_FORMAT`].
    pub format: String,
    /// The rule set the weights were learned on.
    pub rules: String,
    /// Feature names, in order.
    pub features: Vec<String>,
    /// The constant term.
    pub bias: f64,
    /// One weight per feature.
    pub weights: Vec<f64>,
}

/// What is wrong with a heuristic weights file.
#[derive(Clone, Debug, thiserror::Error)]
pub enum WeightsProblem {
    /// The file could not be read.
    #[error("{0}")]
    Unreadable(std::sync::Arc<std::io::Error>),
    /// Not JSON of a weights file's shape.
    #[error("{0}")]
    NotJson(std::sync::Arc<serde_json::Error>),
    /// Another `format`.
    #[error("not a heuristic weights file")]
    NotWeights,
    /// Weights learned on another rule set.
    #[error("weights for {found}, not {expected}")]
    OtherRules {
        /// The file's rule set.
        found: String,
        /// The rule set played.
        expected: String,
    },
    /// Other features than this evaluation's.
    #[error("features {found:?}; this evaluation has {expected:?}")]
    OtherFeatures {
        /// The file's.
        found: Vec<String>,
        /// The evaluation's.
        expected: &'static [&'static str],
    },
    /// A weight that is not a finite number.
    #[error("a weight is not finite")]
    NotFinite,
}

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
