//! Scores with confidence intervals, and their Elo equivalents.

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A mean score with a 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The mean.
    pub mean: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// The mean of `samples` with a 95% interval from their standard error
/// (normal approximation; samples are pair scores in [0, 1]). Clamped to [0, 1].
pub fn mean_interval(samples: &[f64]) -> Interval {
    let n = samples.len() as f64;
    if samples.is_empty() {
        return Interval {
            mean: 0.5,
            low: 0.0,
            high: 1.0,
        };
    }
    let mean = samples.iter().sum::<f64>() / n;
    let variance = if samples.len() > 1 {
        samples.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.25
    };
    let half = Z95 * (variance / n).sqrt();
    Interval {
        mean,
        low: (mean - half).max(0.0),
        high: (mean + half).min(1.0),
    }
}

/// The Elo difference that an expected score stands for (±inf at 0 and 1).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.75) - 190.848).abs() < 1e-3);
        assert!((elo_from_score(0.25) + 190.848).abs() < 1e-3);
    }

    #[test]
    fn interval_of_known_samples() {
        let samples = [1.0, 0.5, 0.5, 0.0, 1.0, 1.0, 0.5, 1.0];
        let i = mean_interval(&samples);
        assert!((i.mean - 0.6875).abs() < 1e-12);
        // sd = sqrt(Σ(x-m)^2/(n-1)) = sqrt(0.96875/7); half = 1.96 * sd / sqrt(8)
        let half = Z95 * (0.96875f64 / 7.0 / 8.0).sqrt();
        assert!((i.low - (0.6875 - half)).abs() < 1e-12);
        assert!((i.high - (0.6875 + half).min(1.0)).abs() < 1e-12);
    }
}
