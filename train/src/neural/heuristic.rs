//! Learning the hand-made evaluation's weights in the same loop as the
//! network: value = sigmoid(bias + Σ wᵢ·fᵢ) is fitted to the same targets
//! (TD(λ) returns or exact values) by mini-batch gradient descent on the
//! squared error, starting from the hand-tuned weights. The result is a
//! weights file that `heuristic:weights=FILE` and
//! `expectiminimax:weights=FILE` play with.

use super::selfplay::Sample;
use sawah_agents::heuristic::{HasHeuristic, WEIGHTS_FORMAT, WeightsFile};
use serde::{Deserialize, Serialize};

/// The weights being learned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeuristicWeights {
    /// The constant term.
    pub bias: f64,
    /// One weight per feature.
    pub weights: Vec<f64>,
}

impl HeuristicWeights {
    /// The hand-tuned starting point of `game`.
    pub fn initial<G: HasHeuristic>(game: &G) -> HeuristicWeights {
        let h = game.heuristic();
        let w = G::heuristic_weights(&h);
        HeuristicWeights {
            bias: w.bias,
            weights: w.weights.clone(),
        }
    }

    /// One pass of mini-batch gradient descent over `samples` in `order`;
    /// returns the mean squared error before each step.
    pub fn fit(&mut self, samples: &[Sample], order: &[usize], batch: usize, rate: f64) -> f64 {
        let n = self.weights.len();
        let mut total = 0.0;
        let mut counted = 0usize;
        for chunk in order.chunks(batch.max(1)) {
            let mut grad_bias = 0.0;
            let mut grad = vec![0.0; n];
            let mut used = 0usize;
            for &k in chunk {
                let s = &samples[k];
                if s.features.len() != n {
                    continue;
                }
                let z = self.bias
                    + self
                        .weights
                        .iter()
                        .zip(&s.features)
                        .map(|(w, &f)| w * f64::from(f))
                        .sum::<f64>();
                let p = 1.0 / (1.0 + (-z).exp());
                let error = p - f64::from(s.target);
                total += error * error;
                let g = error * p * (1.0 - p);
                grad_bias += g;
                for (gi, &f) in grad.iter_mut().zip(&s.features) {
                    *gi += g * f64::from(f);
                }
                used += 1;
            }
            if used == 0 {
                continue;
            }
            counted += used;
            let scale = rate / used as f64;
            self.bias -= scale * grad_bias;
            for (w, gi) in self.weights.iter_mut().zip(&grad) {
                *w -= scale * gi;
            }
        }
        total / counted.max(1) as f64
    }

    /// As a weights file for `game`.
    pub fn to_file<G: HasHeuristic>(&self, game: &G) -> WeightsFile {
        let h = game.heuristic();
        WeightsFile {
            format: WEIGHTS_FORMAT.to_string(),
            rules: game.name().to_string(),
            features: G::heuristic_weights(&h)
                .names
                .iter()
                .map(|s| s.to_string())
                .collect(),
            bias: self.bias,
            weights: self.weights.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descent_recovers_weights_that_generated_the_targets() {
        // Targets from known weights; fitting from elsewhere gets close.
        let truth = HeuristicWeights {
            bias: 0.2,
            weights: vec![1.5, -0.7],
        };
        let samples: Vec<Sample> = (0..4000)
            .map(|k| {
                let f = [
                    ((k * 37) % 101) as f32 / 50.0 - 1.0,
                    ((k * 53) % 97) as f32 / 48.0 - 1.0,
                ];
                let z = truth.bias
                    + truth.weights[0] * f64::from(f[0])
                    + truth.weights[1] * f64::from(f[1]);
                Sample {
                    active: vec![],
                    target: (1.0 / (1.0 + (-z).exp())) as f32,
                    predicted: 0.5,
                    features: f.to_vec(),
                }
            })
            .collect();
        let order: Vec<usize> = (0..samples.len()).collect();
        let mut learned = HeuristicWeights {
            bias: 0.0,
            weights: vec![0.0, 0.0],
        };
        let first = learned.fit(&samples, &order, 32, 2.0);
        let mut last = first;
        for _ in 0..60 {
            last = learned.fit(&samples, &order, 32, 2.0);
        }
        assert!(last < first / 50.0, "{first} -> {last}");
        assert!((learned.weights[0] - 1.5).abs() < 0.1, "{learned:?}");
        assert!((learned.weights[1] + 0.7).abs() < 0.1, "{learned:?}");
    }
}
