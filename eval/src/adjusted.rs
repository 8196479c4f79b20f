//! Elo fitted on luck-adjusted scores: the same Bradley–Terry model as the
//! raw table, fitted to every game's luck-adjusted light score, with
//! intervals from the spread of the adjusted results, the two games of a
//! pair taken together (the cluster-robust covariance of
//! [`bradley_terry::fit_clustered`]).

use crate::bradley_terry::{self, FitError, FitOptions, Observed, Ratings};
use crate::results::GameRecord;
use std::collections::HashMap;

/// Ratings fitted on luck-adjusted scores.
#[derive(Clone, Debug)]
pub struct AdjustedFit {
    /// The ratings, in the agents' order.
    pub ratings: Ratings,
    /// Each agent's mean luck-adjusted score per game.
    pub scores: Vec<f64>,
    /// The virtual drawn games per pairing used: none when every seat of
    /// every pairing scored strictly between nothing and everything (the
    /// maximum then exists, and the prior's pull toward a draw, a fraction
    /// of an Elo point beside a game's spread, would not be beside these
    /// intervals); else the prior asked for.
    pub prior: f64,
}

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

/// Fits the agents of `games` (indexed by `index`) on their luck-adjusted
/// scores, with `options` (its prior used only where the maximum needs it,
/// see [`AdjustedFit::prior`]).
pub fn fit_adjusted(
    games: &[GameRecord],
    index: &HashMap<&str, usize>,
    options: FitOptions,
) -> Result<AdjustedFit, AdjustedError> {
    let agents = index.len();
    let mut clusters: Vec<Vec<Observed>> = Vec::new();
    let mut pair_of: HashMap<(usize, usize, u64), usize> = HashMap::new();
    let mut points = vec![0.0; agents];
    let mut played = vec![0u64; agents];
    let mut cells: HashMap<(usize, usize), (f64, f64)> = HashMap::new();
    for game in games {
        let light_score = game
            .adjusted_light_score()
            .ok_or_else(|| AdjustedError::NoLuck {
                light: game.light.clone(),
                dark: game.dark.clone(),
                seed: game.seed,
            })?;
        let (light, dark) = (index[game.light.as_str()], index[game.dark.as_str()]);
        points[light] += light_score;
        points[dark] += 1.0 - light_score;
        played[light] += 1;
        played[dark] += 1;
        let cell = cells.entry((light, dark)).or_default();
        cell.0 += 1.0;
        cell.1 += light_score;
        // The two games of a pair: the same agents and dice, seats swapped.
        let key = (light.min(dark), light.max(dark), game.seed);
        let observed = Observed {
            light,
            dark,
            light_score,
        };
        match pair_of.get(&key) {
            Some(&k) => clusters[k].push(observed),
            None => {
                pair_of.insert(key, clusters.len());
                clusters.push(vec![observed]);
            }
        }
    }
    let interior = cells
        .values()
        .all(|&(games, points)| points > 0.0 && points < games);
    let prior = if interior { 0.0 } else { options.prior };
    let ratings = bradley_terry::fit_clustered(agents, &clusters, FitOptions { prior, ..options })?;
    let scores = points
        .iter()
        .zip(&played)
        .map(|(p, &n)| if n > 0 { p / n as f64 } else { 0.0 })
        .collect();
    Ok(AdjustedFit {
        ratings,
        scores,
        prior,
    })
}
