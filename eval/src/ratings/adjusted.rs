//! Elo fitted on luck-adjusted scores: the same Bradley–Terry model as the
//! raw table, fitted to every game's luck-adjusted light score, with
//! intervals from the spread of the adjusted results, the two games of a
//! pair taken together (the cluster-robust covariance of
//! [`bradley_terry::fit_clustered`]).
//!
//! **How much of the luck each pairing takes out.** Taking all of it out
//! (GNU Backgammon's adjusted score, what `sawah match` prints) is best
//! between agents of similar strength, where the dice decide most games.
//! Between a strong agent and a weak one it is worse than nothing: the
//! strong one wins every game whatever the dice, so its raw score barely
//! varies, while its adjusted score carries the weak one's losses, which
//! vary a lot (on ur, hard against random: a raw spread of 0 per pair, an
//! adjusted one of 0.12). So each pairing takes out the share β of its luck
//! that leaves the least spread: its score is raw − β · (raw − adjusted),
//! β = Cov(raw, luck) / Var(luck) over its pairs, kept within 0 to 1 (the
//! control-variate estimator; Lavenberg and Welch, *Management Science*
//! 1981; Glasserman, *Monte Carlo Methods in Financial Engineering* 2003,
//! §4.1). Luck averages to zero under the dice, so any fixed β leaves the
//! expectation alone; β estimated from the same pairs adds a bias of order
//! 1/pairs, far inside the intervals. Between equals β comes out near 1
//! (hard against perfect play on ur: 1.00), and against random near 0.
//! Pairings of fewer than [`MIN_PAIRS_FOR_SHARE`] complete pairs take it
//! all out (β = 1).
//!
//! **How much each pairing counts.** The model's own weights suit results
//! of 0 or 1, whose spread the model knows. Adjusted scores between close
//! agents spread far less (hard against perfect play on ur: 0.0006 a pair
//! against 0.26 raw), and the fit should lean on them accordingly, or two
//! agents that the direct pairing separates exactly are ordered by noise
//! from their games against others. So the fit is done twice: once with
//! every game counting 1, then with each pairing's games counting the
//! inverse of its dispersion (the observed spread of its pair scores around
//! their mean over the spread the model gives a pair, kept within
//! [`MIN_DISPERSION`] to 1;
//! the quasi-likelihood with a dispersion per group, McCullagh and Nelder,
//! *Generalized Linear Models* 1989, ch. 9). A pairing that takes out less
//! than [`MIN_SHARE_FOR_WEIGHT`] of its luck keeps weight 1: its scores are
//! raw results, and a clean sweep's lack of spread measures nothing. The
//! intervals are the sandwich's with the same weights, so they stay right
//! whatever the weights.

use crate::arena::results::GameRecord;
use crate::ratings::bradley_terry::{self, FitError, FitOptions, Observed, Ratings};
use std::collections::HashMap;

/// Ratings fitted on luck-adjusted scores.
#[derive(Clone, Debug)]
pub struct AdjustedFit {
    /// The ratings, in the agents' order.
    pub ratings: Ratings,
    /// Each agent's mean luck-adjusted score per game.
    pub scores: Vec<f64>,
    /// The share of its luck each pairing took out (β), by agent names.
    pub shares: Vec<(String, String, f64)>,
    /// The virtual drawn games per pairing used: none when every seat of
    /// every pairing scored strictly between nothing and everything (the
    /// maximum then exists, and the prior's pull toward a draw, a fraction
    /// of an Elo point beside a game's spread, would not be beside these
    /// intervals); else the prior asked for.
    pub prior: f64,
}

/// The fewest complete pairs a pairing estimates its share of luck from;
/// with fewer, all of it is taken out.
pub const MIN_PAIRS_FOR_SHARE: usize = 20;

/// The least dispersion a pairing is weighted by: an exact reference
/// between two agents that never err leaves no spread at all, and its
/// weight stays finite.
pub const MIN_DISPERSION: f64 = 1e-6;

/// The least share of luck taken out for a pairing to be weighted by its
/// observed spread (below it, its scores are raw results and weigh 1).
pub const MIN_SHARE_FOR_WEIGHT: f64 = 0.05;

/// Why adjusted ratings could not be fitted.
#[derive(Debug, thiserror::Error)]
pub enum AdjustedError {
    /// A game without its luck.
    #[error(
        "game {light} vs {dark} (dice seed {seed}) has no luck measured; rate luck-adjusted only games played with --luck-adjusted"
    )]
    NoLuck {
        /// Light's name.
        light: String,
        /// Dark's name.
        dark: String,
        /// The dice seed.
        seed: u64,
    },
    /// The fit failed.
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// One game, read for the adjusted fit.
struct Read {
    light: usize,
    dark: usize,
    raw: f64,
    adjusted: f64,
}

/// Fits the agents of `games` (indexed by `index`) on their luck-adjusted
/// scores, each pairing taking out its share of the luck (see the module
/// docs), with `options` (its prior used only where the maximum needs it,
/// see [`AdjustedFit::prior`]).
pub fn fit_adjusted(
    games: &[GameRecord],
    index: &HashMap<&str, usize>,
    options: FitOptions,
) -> Result<AdjustedFit, AdjustedError> {
    let agents = index.len();
    let mut pairs: Vec<Vec<Read>> = Vec::new();
    let mut pair_of: HashMap<(usize, usize, u64), usize> = HashMap::new();
    for game in games {
        let adjusted = game
            .adjusted_light_score()
            .ok_or_else(|| AdjustedError::NoLuck {
                light: game.light.clone(),
                dark: game.dark.clone(),
                seed: game.seed,
            })?;
        let (light, dark) = (index[game.light.as_str()], index[game.dark.as_str()]);
        let read = Read {
            light,
            dark,
            raw: game.light_score(),
            adjusted,
        };
        // The two games of a pair: the same agents and dice, seats swapped.
        let key = (light.min(dark), light.max(dark), game.seed);
        match pair_of.get(&key) {
            Some(&k) => pairs[k].push(read),
            None => {
                pair_of.insert(key, pairs.len());
                pairs.push(vec![read]);
            }
        }
    }
    let shares = luck_shares(&pairs);
    let scored = Scored::of(&pairs, &shares, agents);
    let (mut clusters, points, played, interior) = (
        scored.clusters,
        scored.points,
        scored.played,
        scored.interior,
    );
    let prior = if interior { 0.0 } else { options.prior };
    let options = FitOptions { prior, ..options };
    // First unweighted, then each pairing weighted by the inverse of its
    // dispersion (see the module docs).
    let first = bradley_terry::fit_clustered(agents, &clusters, options)?;
    let dispersions = dispersions(&clusters, &first);
    for game in clusters.iter_mut().flatten() {
        let pairing = (game.light.min(game.dark), game.light.max(game.dark));
        // A pairing that took out (almost) none of its luck has raw results,
        // whose spread is the model's: an observed spread of nothing there
        // is a clean sweep, not a precise measure.
        let dispersion = if shares[&pairing] < MIN_SHARE_FOR_WEIGHT {
            1.0
        } else {
            dispersions[&pairing].clamp(MIN_DISPERSION, 1.0)
        };
        game.weight = 1.0 / dispersion;
    }
    let ratings = bradley_terry::fit_clustered(agents, &clusters, options)?;
    let scores = points
        .iter()
        .zip(&played)
        .map(|(p, &n)| if n > 0 { p / n as f64 } else { 0.0 })
        .collect();
    let mut names = vec![""; agents];
    for (&name, &i) in index {
        names[i] = name;
    }
    let mut shares: Vec<(String, String, f64)> = shares
        .into_iter()
        .map(|((a, b), share)| (names[a].to_string(), names[b].to_string(), share))
        .collect();
    shares.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
    Ok(AdjustedFit {
        ratings,
        scores,
        shares,
        prior,
    })
}

/// Every game's score for the fit (raw − β · (raw − adjusted)), grouped
/// by pair, with each agent's points and games, and whether every seat of
/// every pairing scored strictly between nothing and everything.
struct Scored {
    clusters: Vec<Vec<Observed>>,
    points: Vec<f64>,
    played: Vec<u64>,
    interior: bool,
}

impl Scored {
    fn of(pairs: &[Vec<Read>], shares: &HashMap<(usize, usize), f64>, agents: usize) -> Scored {
        let mut points = vec![0.0; agents];
        let mut played = vec![0u64; agents];
        let mut cells: HashMap<(usize, usize), (f64, f64)> = HashMap::new();
        let clusters = pairs
            .iter()
            .map(|pair| {
                pair.iter()
                    .map(|game| {
                        let share = shares[&(game.light.min(game.dark), game.light.max(game.dark))];
                        let light_score = game.raw - share * (game.raw - game.adjusted);
                        points[game.light] += light_score;
                        points[game.dark] += 1.0 - light_score;
                        played[game.light] += 1;
                        played[game.dark] += 1;
                        let cell = cells.entry((game.light, game.dark)).or_default();
                        cell.0 += 1.0;
                        cell.1 += light_score;
                        Observed {
                            light: game.light,
                            dark: game.dark,
                            light_score,
                            weight: 1.0,
                        }
                    })
                    .collect()
            })
            .collect();
        let interior = cells
            .values()
            .all(|&(games, points)| points > 0.0 && points < games);
        Scored {
            clusters,
            points,
            played,
            interior,
        }
    }
}

/// Each pairing's share of luck to take out, by (lower, higher) agent
/// index: β = Cov(raw, luck) / Var(luck) over its complete pairs, within 0
/// to 1, where raw and luck are the lower agent's pair score and what the
/// luck added to it (raw − adjusted); 1 below [`MIN_PAIRS_FOR_SHARE`]
/// pairs or without spread in the luck.
fn luck_shares(pairs: &[Vec<Read>]) -> HashMap<(usize, usize), f64> {
    let mut by_pairing: HashMap<(usize, usize), Vec<(f64, f64)>> = HashMap::new();
    for pair in pairs {
        let Some(first) = pair.first() else { continue };
        let key = (first.light.min(first.dark), first.light.max(first.dark));
        let entry = by_pairing.entry(key).or_default();
        if pair.len() != 2 {
            continue; // a shard's half pair: counted in the fit, not here
        }
        let (mut raw, mut luck) = (0.0, 0.0);
        for game in pair {
            // The lower agent's points and the luck's part in them.
            let sign = if game.light == key.0 { 1.0 } else { -1.0 };
            raw += if sign > 0.0 { game.raw } else { 1.0 - game.raw };
            luck += sign * (game.raw - game.adjusted);
        }
        entry.push((raw, luck));
    }
    by_pairing
        .into_iter()
        .map(|(key, pairs)| (key, share_of(&pairs)))
        .collect()
}

/// β for one pairing's (raw, luck) pair scores.
fn share_of(pairs: &[(f64, f64)]) -> f64 {
    if pairs.len() < MIN_PAIRS_FOR_SHARE {
        return 1.0;
    }
    let n = pairs.len() as f64;
    let (raw_mean, luck_mean) = pairs.iter().fold((0.0, 0.0), |(r, l), &(raw, luck)| {
        (r + raw / n, l + luck / n)
    });
    let (mut covariance, mut variance) = (0.0, 0.0);
    for &(raw, luck) in pairs {
        covariance += (raw - raw_mean) * (luck - luck_mean);
        variance += (luck - luck_mean) * (luck - luck_mean);
    }
    if variance <= 0.0 {
        return 1.0;
    }
    (covariance / variance).clamp(0.0, 1.0)
}

/// Each pairing's dispersion: the observed spread of its pair scores
/// around their own mean, over the spread the model at `fitted` gives a
/// pair, Σ (s − s̄)² / (n − 1) against the mean of Σ_pair p (1 − p). Around
/// the pairing's own mean, not the model's expectation, so that where the
/// model does not fit every pairing exactly the misfit is not read as noise.
/// About 1 for raw results; far below for adjusted scores between close
/// agents. A pairing with a single pair has dispersion 1.
fn dispersions(
    clusters: &[Vec<Observed>],
    fitted: &bradley_terry::Ratings,
) -> HashMap<(usize, usize), f64> {
    let expected = |game: &Observed| {
        let gap = fitted.elo[game.dark] - fitted.elo[game.light] - fitted.first_move_elo;
        1.0 / (1.0 + 10f64.powf(gap / 400.0))
    };
    // Per pairing: each pair's score for the lower agent, and the model's
    // variance of it.
    let mut pairings: HashMap<(usize, usize), Vec<(f64, f64)>> = HashMap::new();
    for cluster in clusters {
        let Some(first) = cluster.first() else {
            continue;
        };
        let key = (first.light.min(first.dark), first.light.max(first.dark));
        let (mut score, mut model) = (0.0, 0.0);
        for game in cluster {
            let p = expected(game);
            score += if game.light == key.0 {
                game.light_score
            } else {
                1.0 - game.light_score
            };
            model += p * (1.0 - p);
        }
        // A half pair (a shard's) would add a game's spread to a pair's.
        if cluster.len() == 2 {
            pairings.entry(key).or_default().push((score, model));
        } else {
            pairings.entry(key).or_default();
        }
    }
    pairings
        .into_iter()
        .map(|(key, pairs)| {
            let n = pairs.len() as f64;
            if pairs.len() < 2 {
                return (key, 1.0);
            }
            let mean = pairs.iter().map(|p| p.0).sum::<f64>() / n;
            let observed = pairs.iter().map(|p| (p.0 - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let model = pairs.iter().map(|p| p.1).sum::<f64>() / n;
            let dispersion = if model > 0.0 { observed / model } else { 1.0 };
            (key, dispersion)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::results::GameEnding;
    use crate::arena::results::RecordedLuck;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use sawah_engine::Player;

    /// A game whose light side's luck-adjusted score is `adjusted`: won by
    /// light with that chance, the luck making up the difference.
    fn game(light: &str, dark: &str, seed: u64, adjusted: f64, rng: &mut ChaCha8Rng) -> GameRecord {
        let light_wins = rng.random::<f64>() < adjusted;
        let raw = f64::from(u8::from(light_wins));
        GameRecord {
            rules: "ur".into(),
            light: light.into(),
            dark: dark.into(),
            pair: seed,
            seed,
            ending: GameEnding::Won,
            winner: Some(if light_wins {
                Player::Light
            } else {
                Player::Dark
            }),
            length: 10,
            moves: Vec::new(),
            failure: None,
            luck: Some(RecordedLuck {
                light_pp: 100.0 * (raw - adjusted),
                dark_pp: 0.0,
            }),
        }
    }

    /// Pairs of `a` against `b` whose adjusted scores for `a` are `mean`
    /// give or take `noise`.
    fn pairs(a: &str, b: &str, mean: f64, noise: f64, rng: &mut ChaCha8Rng) -> Vec<GameRecord> {
        let mut out = Vec::new();
        for seed in 0..200 {
            let jitter = |rng: &mut ChaCha8Rng| noise * (2.0 * rng.random::<f64>() - 1.0);
            let first = mean + jitter(rng);
            out.push(game(a, b, seed, first, rng));
            let second = mean + jitter(rng);
            out.push(game(b, a, seed, 1.0 - second, rng));
        }
        out
    }

    #[test]
    fn a_precise_pairing_outweighs_noisy_ones_and_shares_follow_the_luck() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // A and B are equal by their own, precise pairing; against C their
        // noisy scores differ (0.60 and 0.75), which alone would put B about
        // 120 Elo above A.
        let mut games = pairs("A", "B", 0.5, 0.002, &mut rng);
        games.extend(pairs("A", "C", 0.60, 0.3, &mut rng));
        games.extend(pairs("B", "C", 0.75, 0.3, &mut rng));
        let index: HashMap<&str, usize> = [("A", 0), ("B", 1), ("C", 2)].into_iter().collect();
        let options = FitOptions {
            anchor: 2,
            ..FitOptions::default()
        };
        let fit = fit_adjusted(&games, &index, options).unwrap();
        let gap = fit.ratings.elo[1] - fit.ratings.elo[0];
        assert!(gap.abs() < 5.0, "B − A = {gap}: {fit:?}");
        // The same scores with every game counting 1 are pulled apart.
        let clusters: Vec<Vec<Observed>> = games
            .chunks(2)
            .map(|pair| {
                pair.iter()
                    .map(|g| Observed {
                        light: index[g.light.as_str()],
                        dark: index[g.dark.as_str()],
                        light_score: g.adjusted_light_score().unwrap(),
                        weight: 1.0,
                    })
                    .collect()
            })
            .collect();
        let unweighted = bradley_terry::fit_clustered(3, &clusters, options).unwrap();
        assert!(
            unweighted.elo[1] - unweighted.elo[0] > 30.0,
            "{unweighted:?}"
        );
        // Every pairing's luck is pure noise around its adjusted score, so
        // each takes out about all of it.
        for (a, b, share) in &fit.shares {
            assert!(*share > 0.8, "{a}–{b}: {share}");
        }
    }

    #[test]
    fn a_share_is_all_the_luck_between_equals_and_none_for_a_sweep() {
        // Luck that explains the raw score entirely: β = 1.
        let pairs: Vec<(f64, f64)> = (0..40)
            .map(|k| (f64::from(k % 3), f64::from(k % 3) - 1.0))
            .collect();
        assert!((share_of(&pairs) - 1.0).abs() < 1e-12);
        // A sweep (raw always 2) with luck varying: β = 0.
        let sweep: Vec<(f64, f64)> = (0..40).map(|k| (2.0, f64::from(k % 5) / 10.0)).collect();
        assert!(share_of(&sweep).abs() < 1e-12);
        // Too few pairs: all of it.
        assert_eq!(share_of(&sweep[..10]), 1.0);
    }
}
