//! The weights of a hand-made evaluation, and the file `sawah train` writes
//! them to.

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
