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

/// The Wilson score interval (95%) for a proportion `p` observed over `n` trials.
pub fn wilson(p: f64, n: f64) -> Interval {
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    Interval {
        mean: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// The mean of `samples` with a 95% interval from their standard error
/// (normal approximation; samples are pair scores in [0, 1]), clamped to
/// [0, 1]. When every sample is the same (e.g. one agent won every pair)
/// the standard error is 0 and says nothing, so the Wilson interval of the
/// mean as a proportion over the samples is given instead.
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
    if variance == 0.0 {
        return wilson(mean, n);
    }
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
    fn a_clean_sweep_still_gets_an_interval() {
        let i = mean_interval(&[1.0; 200]);
        assert_eq!(i.mean, 1.0);
        assert_eq!(i.high, 1.0);
        // Wilson's lower bound for 200 of 200: n / (n + z^2).
        assert!((i.low - 200.0 / (200.0 + Z95 * Z95)).abs() < 1e-12, "{i:?}");
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
