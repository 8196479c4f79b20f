//! The sequential probability ratio test (SPRT) on game pairs, for promoting
//! a new model over a base one.
//!
//! Games are played in pairs with shared dice and swapped seats, and each
//! pair's score (0, ½, 1, 1½ or 2 points) is one sample from a pentanomial
//! distribution. These games have no draws, so the trinomial win/draw/loss
//! models with a draw parameter (BayesElo) would never stop; the pentanomial
//! model instead uses the observed distribution of pair scores, which also
//! credits the variance that paired dice take away.
//!
//! The log-likelihood ratio is the generalised SPRT of the chess-engine test
//! frameworks: for each hypothesis, the maximum-likelihood pentanomial
//! distribution whose expected score is the hypothesis's score, against the
//! empirical one; the LLR is the difference of their log-likelihoods. Its
//! values are checked against published figures in the tests.

use std::fmt;

/// Counts of game pairs by the first agent's points in the pair: index `k`
/// holds pairs that scored `k / 2` points out of 2 (0, ½, 1, 1½, 2). A pair
/// with a stopped game scores ½ for that game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair by its score in [0, 1] (mean of the two games).
    pub fn add_pair(&mut self, score: f64) {
        let bin = (score * 4.0).round().clamp(0.0, 4.0) as usize;
        self.0[bin] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The mean pair score in [0, 1] (0.5 when empty).
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        self.0
            .iter()
            .enumerate()
            .map(|(k, &c)| c as f64 * k as f64 / 4.0)
            .sum::<f64>()
            / n as f64
    }
}

/// How an Elo difference maps to an expected score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EloModel {
    /// Classical (logistic) Elo: score = 1 / (1 + 10^(−elo/400)).
    #[default]
    Logistic,
    /// Normalised Elo (nElo), scaled by the observed spread of pair scores,
    /// so bounds mean the same effort whatever the draw or luck level. The
    /// spread is the empirical one (fishtest fits it per hypothesis); the two
    /// agree on ordinary counts (tested) and differ when nearly every pair
    /// has the same result, where this one stays near 0 until results vary.
    Normalized,
}

impl std::str::FromStr for EloModel {
    type Err = String;
    fn from_str(s: &str) -> Result<EloModel, String> {
        match s {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" | "normalised" => Ok(EloModel::Normalized),
            other => Err(format!(
                "unknown Elo model {other:?}; use logistic or normalized"
            )),
        }
    }
}

impl fmt::Display for EloModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        })
    }
}

/// The expected score of a logistic Elo difference.
pub fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The test's settings: H0 (elo = `elo0`) against H1 (elo = `elo1`), with
/// error rates `alpha` (accepting H1 when H0 holds) and `beta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtParams {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1 (greater than `elo0`).
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
    /// What the Elo bounds mean.
    pub model: EloModel,
}

/// Where the test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Neither bound crossed yet.
    Continue,
    /// H0 accepted: the new agent is not `elo1` better.
    AcceptH0,
    /// H1 accepted: the new agent is better (promote it).
    AcceptH1,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Continue => "continue",
            Decision::AcceptH0 => "H0 accepted",
            Decision::AcceptH1 => "H1 accepted",
        })
    }
}

/// SPRT settings out of range: which, and what is allowed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SprtParamsError(pub String);

impl SprtParams {
    /// Checks the settings, naming the first one out of range.
    pub fn validate(&self) -> Result<(), SprtParamsError> {
        let fail = |message: String| Err(SprtParamsError(message));
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return fail(format!("alpha must be in (0, 1), not {}", self.alpha));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return fail(format!("beta must be in (0, 1), not {}", self.beta));
        }
        if self.alpha + self.beta >= 1.0 {
            return fail(format!(
                "alpha + beta must be below 1, not {}",
                self.alpha + self.beta
            ));
        }
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return fail(format!(
                "elo0 must be below elo1 (both finite), not {} and {}",
                self.elo0, self.elo1
            ));
        }
        Ok(())
    }

    /// The lower bound: accept H0 at or below ln(β / (1 − α)).
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound: accept H1 at or above ln((1 − β) / α).
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> Decision {
        if llr >= self.upper_bound() {
            Decision::AcceptH1
        } else if llr <= self.lower_bound() {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }

    /// The log-likelihood ratio of the counts (0 with no pairs).
    pub fn llr(&self, counts: &Pentanomial) -> f64 {
        let n = counts.pairs() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let pdf = regularised_pdf(counts);
        let mean: f64 = pdf.iter().map(|(a, p)| a * p).sum();
        let variance: f64 = pdf.iter().map(|(a, p)| p * (a - mean).powi(2)).sum();
        let (s0, s1) = self.hypothesis_scores(variance);
        n * (log_likelihood_at(&pdf, s1) - log_likelihood_at(&pdf, s0))
    }

    /// The expected pair scores under H0 and H1. Logistic: the scores of
    /// the Elo bounds. Normalised: nElo = (score − ½) / σ_pair · (800 /
    /// ln 10) / √2, σ_pair the standard deviation of a pair's score, from
    /// the pairs' `variance`.
    fn hypothesis_scores(&self, variance: f64) -> (f64, f64) {
        match self.model {
            EloModel::Logistic => (logistic_score(self.elo0), logistic_score(self.elo1)),
            EloModel::Normalized => {
                let scale = std::f64::consts::SQRT_2 * variance.sqrt() / (800.0 / 10f64.ln());
                (0.5 + self.elo0 * scale, 0.5 + self.elo1 * scale)
            }
        }
    }
}

/// The empirical distribution of pair scores in [0, 1], as (score,
/// probability) per bin, with empty bins given a tiny count (10⁻³ pairs, as
/// the chess frameworks do) so every hypothesis mean in (0, 1) is reachable
/// and a run of identical results does not give an infinite ratio.
fn regularised_pdf(counts: &Pentanomial) -> Vec<(f64, f64)> {
    let values: Vec<f64> = counts
        .0
        .iter()
        .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
        .collect();
    let total: f64 = values.iter().sum();
    values
        .iter()
        .enumerate()
        .map(|(k, c)| (k as f64 / 4.0, c / total))
        .collect()
}

/// Σ p̂ᵢ · ln(qᵢ / p̂ᵢ) where q is the distribution closest to the empirical
/// p̂ (maximum likelihood) with mean `s`: qᵢ = p̂ᵢ / (1 + λ (aᵢ − s)), λ the
/// root of Σ p̂ᵢ (aᵢ − s) / (1 + λ (aᵢ − s)) = 0, found by bisection on the
/// interval where every qᵢ stays positive.
fn log_likelihood_at(pdf: &[(f64, f64)], s: f64) -> f64 {
    let lowest = pdf.iter().map(|(a, _)| a - s).fold(f64::INFINITY, f64::min);
    let highest = pdf
        .iter()
        .map(|(a, _)| a - s)
        .fold(f64::NEG_INFINITY, f64::max);
    if lowest >= 0.0 || highest <= 0.0 {
        // s at or past the ends of [0, 1]: no distribution on the bins has
        // that mean.
        return f64::NEG_INFINITY;
    }
    let f = |lambda: f64| -> f64 {
        pdf.iter()
            .map(|(a, p)| p * (a - s) / (1.0 + lambda * (a - s)))
            .sum()
    };
    // 1 + λ(a − s) > 0 for every a: λ in (−1/highest, −1/lowest).
    let (mut lo, mut hi) = (-1.0 / highest, -1.0 / lowest);
    let shrink = 1e-12;
    lo += (hi - lo) * shrink;
    hi -= (hi - lo) * shrink;
    // f decreases in λ.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-15 * (1.0 + mid.abs()) {
            break;
        }
    }
    let lambda = 0.5 * (lo + hi);
    pdf.iter()
        .map(|(a, p)| -p * (1.0 + lambda * (a - s)).ln())
        .sum()
}

/// Count, mean and spread of continuous pair scores (luck-adjusted ones).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    /// Pairs.
    pub n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Moments {
    /// Adds one pair's score.
    pub fn add(&mut self, score: f64) {
        self.n += 1;
        self.sum += score;
        self.sum_sq += score * score;
    }

    /// The mean score (½ with none).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.5
        } else {
            self.sum / self.n as f64
        }
    }

    /// The sample variance of the scores (0 with fewer than two).
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0)
    }
}

impl SprtParams {
    /// The log-likelihood ratio of continuous pair scores (luck-adjusted
    /// ones, which take any value, not five): Wald's SPRT for the mean of a
    /// normal distribution, H0 mean s0 against H1 mean s1, with the
    /// variance estimated from the pairs so far (a generalised SPRT):
    /// n (s1 − s0) (2 x̄ − s0 − s1) / (2 σ̂²). The variance is floored at
    /// 10⁻⁶ so identical scores do not give an infinite ratio; with fewer
    /// than two pairs the ratio is 0.
    pub fn llr_normal(&self, moments: &Moments) -> f64 {
        if moments.n < 2 {
            return 0.0;
        }
        let variance = moments.variance().max(1e-6);
        let (s0, s1) = self.hypothesis_scores(variance);
        let n = moments.n as f64;
        n * (s1 - s0) * (2.0 * moments.mean() - s0 - s1) / (2.0 * variance)
    }
}

/// The state of a running test, after each batch of pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtState {
    /// Luck-adjusted pair scores so far, when the test measures luck
    /// ([`run_with_luck`]); the test then decides on them.
    pub adjusted: Option<Moments>,
    /// Pair results so far, from the new agent's side.
    pub counts: Pentanomial,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Where the test stands.
    pub decision: Decision,
}

/// How a test is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SprtSchedule {
    /// Pair `k` uses dice [`crate::arena::matches::pair_seed`]`(seed, k)`.
    pub seed: u64,
    /// Pairs played (in parallel) between two looks at the test.
    pub batch: u64,
    /// Stop without a decision after this many pairs.
    pub max_pairs: u64,
}

/// Plays paired games of `new` against `base` in batches, checking the
/// test after each whole batch, until a bound is crossed or the pair limit
/// is reached. The result depends only on the seed, the batch size and the
/// specs, never on thread timing. Training loops call this as their
/// promotion gate.
pub fn run<G>(
    game: &G,
    new: &crate::arena::entrant::Entrant,
    base: &crate::arena::entrant::Entrant,
    params: &SprtParams,
    schedule: SprtSchedule,
    observe: &mut dyn FnMut(&SprtState),
) -> Result<SprtState, sawah_agents::SpecError>
where
    G: sawah_agents::HasHeuristic + Sync + 'static,
{
    let play = |pair: u64| -> Result<(f64, Option<f64>), sawah_agents::SpecError> {
        let dice = crate::arena::matches::pair_seed(schedule.seed, pair);
        Ok((
            crate::arena::matches::play_pair(game, new, base, dice)?,
            None,
        ))
    };
    run_batches(params, schedule, false, &play, observe)
}

/// [`run`] deciding on luck-adjusted pair scores (see [`crate::arena::luck`]),
/// with every game's luck measured by `meter`, and the LLR of
/// [`SprtParams::llr_normal`]: the same expectation as the raw scores with
/// far less spread, so a decision in fewer games. The pentanomial counts of
/// the raw scores are kept beside them.
pub fn run_with_luck<G>(
    game: &G,
    new: &crate::arena::entrant::Entrant,
    base: &crate::arena::entrant::Entrant,
    params: &SprtParams,
    schedule: SprtSchedule,
    meter: &dyn crate::arena::luck::LuckMeter,
    observe: &mut dyn FnMut(&SprtState),
) -> Result<SprtState, crate::arena::matches::LuckMatchError>
where
    G: sawah_agents::HasHeuristic + Sync + 'static,
{
    let play = |pair: u64| -> Result<(f64, Option<f64>), crate::arena::matches::LuckMatchError> {
        let dice = crate::arena::matches::pair_seed(schedule.seed, pair);
        let (outcomes, adjusted) =
            crate::arena::matches::play_pair_with_luck(game, new, base, dice, meter)?;
        Ok((crate::arena::matches::pair_score(outcomes), Some(adjusted)))
    };
    run_batches(params, schedule, true, &play, observe)
}

/// Plays `schedule`'s pairs with `play` (raw and, measuring luck, adjusted
/// pair scores) in batches, checking the test after each whole batch.
fn run_batches<E: Send>(
    params: &SprtParams,
    schedule: SprtSchedule,
    adjusted: bool,
    play: &(dyn Fn(u64) -> Result<(f64, Option<f64>), E> + Sync),
    observe: &mut dyn FnMut(&SprtState),
) -> Result<SprtState, E> {
    use rayon::prelude::*;
    let SprtSchedule {
        batch, max_pairs, ..
    } = schedule;
    let batch = batch.max(1);
    let mut state = SprtState {
        adjusted: adjusted.then(Moments::default),
        counts: Pentanomial::default(),
        llr: 0.0,
        decision: Decision::Continue,
    };
    let mut next = 0u64;
    while next < max_pairs && state.decision == Decision::Continue {
        let end = (next + batch).min(max_pairs);
        let scores: Vec<(f64, Option<f64>)> = (next..end)
            .into_par_iter()
            .map(play)
            .collect::<Result<_, E>>()?;
        for (score, adjusted_score) in scores {
            state.counts.add_pair(score);
            if let (Some(moments), Some(adjusted_score)) = (&mut state.adjusted, adjusted_score) {
                moments.add(adjusted_score);
            }
        }
        next = end;
        state.llr = match &state.adjusted {
            Some(moments) => params.llr_normal(moments),
            None => params.llr(&state.counts),
        };
        state.decision = params.decide(state.llr);
        observe(&state);
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(elo0: f64, elo1: f64, model: EloModel) -> SprtParams {
        SprtParams {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model,
        }
    }

    /// Pentanomial counts from the chess frameworks' order (WW, WD, WL, DD,
    /// LD, LL) into ours (0, ½, 1, 1½, 2 points).
    fn penta(ww: u64, wd: u64, wl: u64, dd: u64, ld: u64, ll: u64) -> Pentanomial {
        Pentanomial([ll, ld, wl + dd, wd, ww])
    }

    fn assert_within_percent(expected: f64, actual: f64) {
        assert!(
            (expected - actual).abs() <= expected.abs() * 0.01,
            "expected {expected}, got {actual}"
        );
    }

    /// Published values (fastchess's SPRT tests, which agree with fishtest's
    /// to the two decimals shown there; checked to 1% as they are).
    #[test]
    fn logistic_pentanomial_llr_matches_published_values() {
        let llr =
            params(0.5, 2.5, EloModel::Logistic).llr(&penta(246, 10037, 20279, 1000, 9863, 223));
        assert_within_percent(-3.07, llr);
        let llr =
            params(0.0, 2.0, EloModel::Logistic).llr(&penta(821, 26678, 55003, 980, 26175, 871));
        assert_within_percent(-4.98, llr);
    }

    #[test]
    fn normalized_pentanomial_llr_matches_published_values() {
        let llr =
            params(0.0, 2.0, EloModel::Normalized).llr(&penta(390, 16974, 36029, 200, 16618, 365));
        assert_within_percent(2.25, llr);
        let llr =
            params(-1.75, 0.25, EloModel::Normalized).llr(&penta(104, 5150, 10311, 401, 4883, 127));
        assert_within_percent(3.01, llr);
    }

    #[test]
    fn the_normal_llr_of_continuous_scores_is_wald_s_for_a_normal_mean() {
        let p = params(0.0, 35.0, EloModel::Logistic);
        let (s0, s1) = (logistic_score(0.0), logistic_score(35.0));
        let mut moments = Moments::default();
        for _ in 0..50 {
            moments.add(0.5);
            moments.add(0.7);
        }
        assert!((moments.mean() - 0.6).abs() < 1e-12);
        let variance = 0.01 * 100.0 / 99.0;
        assert!((moments.variance() - variance).abs() < 1e-12);
        let expected = 100.0 * (s1 - s0) * (2.0 * 0.6 - s0 - s1) / (2.0 * variance);
        assert!((p.llr_normal(&moments) - expected).abs() < 1e-9);
        // Halfway between the hypotheses the evidence is even.
        let mut even = Moments::default();
        for _ in 0..50 {
            even.add((s0 + s1) / 2.0 - 0.1);
            even.add((s0 + s1) / 2.0 + 0.1);
        }
        assert!(p.llr_normal(&even).abs() < 1e-9);
        assert_eq!(p.llr_normal(&Moments::default()), 0.0);
    }

    #[test]
    fn bounds_are_walds() {
        let p = params(0.0, 10.0, EloModel::Logistic);
        assert!((p.upper_bound() - 19f64.ln()).abs() < 1e-12);
        assert!((p.lower_bound() + 19f64.ln()).abs() < 1e-12);
        assert_eq!(p.decide(3.0), Decision::AcceptH1);
        assert_eq!(p.decide(-3.0), Decision::AcceptH0);
        assert_eq!(p.decide(0.0), Decision::Continue);
    }

    #[test]
    fn no_draw_pairs_still_decide() {
        // Only 0, 1 and 2 points per pair (no draws): a clearly better agent
        // is accepted, an equal one rejected.
        let p = params(0.0, 10.0, EloModel::Logistic);
        let better = Pentanomial([1000, 0, 6000, 0, 1400]);
        assert_eq!(p.decide(p.llr(&better)), Decision::AcceptH1);
        let equal = Pentanomial([1200, 0, 6000, 0, 1200]);
        assert_eq!(p.decide(p.llr(&equal)), Decision::AcceptH0);
        let empty = Pentanomial::default();
        assert_eq!(p.llr(&empty), 0.0);
    }

    #[test]
    fn llr_rises_with_the_score() {
        let p = params(0.0, 10.0, EloModel::Logistic);
        let mut last = f64::NEG_INFINITY;
        for wins in [900, 1000, 1100, 1200, 1300] {
            let llr = p.llr(&Pentanomial([1100, 0, 5000, 0, wins]));
            assert!(llr > last, "{wins}: {llr} after {last}");
            last = llr;
        }
    }

    #[test]
    fn invalid_settings_are_named() {
        let mut p = params(5.0, 0.0, EloModel::Logistic);
        assert!(p.validate().unwrap_err().0.contains("elo0"));
        p = params(0.0, 5.0, EloModel::Logistic);
        p.alpha = 0.0;
        assert!(p.validate().unwrap_err().0.contains("alpha"));
        p.alpha = 0.6;
        p.beta = 0.5;
        assert!(p.validate().unwrap_err().0.contains("alpha + beta"));
    }
}
