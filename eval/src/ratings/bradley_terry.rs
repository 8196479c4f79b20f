//! Maximum-likelihood Bradley–Terry ratings with a first-move advantage,
//! fitted by the MM algorithm (Hunter 2004, "MM algorithms for generalized
//! Bradley–Terry models", the home-field model of its section 4).
//!
//! The model: when agent `i` moves first (light) against `j`, light wins
//! with probability θγᵢ / (θγᵢ + γⱼ). Ratings are rᵢ = ln γᵢ and the
//! first-move advantage is ln θ, both shown in Elo (× 400 / ln 10). A game
//! stopped without a winner counts half a win each.
//!
//! A small prior keeps ratings finite when an agent won or lost every game:
//! `prior` virtual games per pairing that played, half of them with each
//! agent moving first, each scored as a draw (BayesElo's "virtual draws").
//!
//! Intervals come from the inverse of the observed information (the
//! negative Hessian of the log-likelihood, prior included) with the anchor
//! fixed: a 95% interval is ±1.96 standard errors. They treat games as
//! independent; paired dice make results less noisy than that, so these
//! intervals are, if anything, conservative. [`fit_clustered`] takes its
//! intervals from the results' observed spread instead (the sandwich
//! covariance, pairs as clusters): what luck-adjusted scores, far less
//! noisy than a game's result, need.

use thiserror::Error;

/// Elo points per natural-log unit of strength.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Results between agents, by seat.
#[derive(Clone, Debug, PartialEq)]
pub struct GameTable {
    agents: usize,
    /// `games[light * agents + dark]`: games with `light` moving first.
    games: Vec<f64>,
    /// Points the light agent scored in those games.
    light_points: Vec<f64>,
}

impl GameTable {
    /// An empty table for `agents` agents.
    pub fn new(agents: usize) -> GameTable {
        GameTable {
            agents,
            games: vec![0.0; agents * agents],
            light_points: vec![0.0; agents * agents],
        }
    }

    /// Number of agents.
    pub fn agents(&self) -> usize {
        self.agents
    }

    /// Records one game: `light` moved first and scored `light_score`
    /// (1 win, 0 loss, ½ stopped).
    pub fn add(&mut self, light: usize, dark: usize, light_score: f64) {
        self.add_weighted(light, dark, 1.0, light_score);
    }

    fn add_weighted(&mut self, light: usize, dark: usize, games: f64, light_points: f64) {
        let k = light * self.agents + dark;
        self.games[k] += games;
        self.light_points[k] += light_points;
    }

    /// Games with `light` moving first against `dark`.
    pub fn games(&self, light: usize, dark: usize) -> f64 {
        self.games[light * self.agents + dark]
    }

    /// Points `light` scored moving first against `dark`.
    pub fn light_points(&self, light: usize, dark: usize) -> f64 {
        self.light_points[light * self.agents + dark]
    }

    /// Games agent `i` played.
    pub fn games_of(&self, i: usize) -> f64 {
        (0..self.agents)
            .map(|j| self.games(i, j) + self.games(j, i))
            .sum()
    }

    /// Points agent `i` scored.
    pub fn points_of(&self, i: usize) -> f64 {
        (0..self.agents)
            .map(|j| self.light_points(i, j) + self.games(j, i) - self.light_points(j, i))
            .sum()
    }

    /// The groups of agents connected by games (each sorted), in order of
    /// their first agent.
    pub fn components(&self) -> Vec<Vec<usize>> {
        let n = self.agents;
        let mut group: Vec<usize> = (0..n).collect();
        fn root(group: &mut [usize], mut i: usize) -> usize {
            while group[i] != i {
                group[i] = group[group[i]];
                i = group[i];
            }
            i
        }
        for i in 0..n {
            for j in 0..n {
                if self.games(i, j) > 0.0 {
                    let (a, b) = (root(&mut group, i), root(&mut group, j));
                    group[a.max(b)] = a.min(b);
                }
            }
        }
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut index_of_root = vec![usize::MAX; n];
        for i in 0..n {
            let r = root(&mut group, i);
            if index_of_root[r] == usize::MAX {
                index_of_root[r] = out.len();
                out.push(Vec::new());
            }
            out[index_of_root[r]].push(i);
        }
        out
    }

    fn with_prior(&self, prior: f64) -> GameTable {
        let mut table = self.clone();
        let n = self.agents;
        for i in 0..n {
            for j in (i + 1)..n {
                if self.games(i, j) + self.games(j, i) > 0.0 {
                    table.add_weighted(i, j, prior / 2.0, prior / 4.0);
                    table.add_weighted(j, i, prior / 2.0, prior / 4.0);
                }
            }
        }
        table
    }
}

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// Virtual drawn games per pairing that played (0 for pure maximum
    /// likelihood, which is infinite for an agent that won every game).
    pub prior: f64,
    /// The anchor agent.
    pub anchor: usize,
    /// The anchor's rating in Elo.
    pub anchor_elo: f64,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            prior: 2.0,
            anchor: 0,
            anchor_elo: 0.0,
        }
    }
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum FitError {
    /// Some agents never met the others, directly or through opponents.
    #[error(
        "the agents fall into {} groups that never played each other, so their ratings cannot be compared: {groups:?}",
        groups.len()
    )]
    Disconnected {
        /// The groups, by agent index.
        groups: Vec<Vec<usize>>,
    },
    /// No agents, or an anchor that is not one of them.
    #[error("anchor {anchor} is not one of the {agents} agents")]
    BadAnchor {
        /// The anchor asked for.
        anchor: usize,
        /// How many agents there are.
        agents: usize,
    },
    /// The MM iteration did not settle.
    #[error("the ratings did not converge in {0} iterations")]
    NoConvergence(usize),
}

/// Fitted ratings.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// Each agent's rating in Elo (the anchor's is its given value).
    pub elo: Vec<f64>,
    /// Standard error of each rating in Elo (0 for the anchor).
    pub elo_se: Vec<f64>,
    /// The advantage of moving first, in Elo.
    pub first_move_elo: f64,
    /// Its standard error in Elo.
    pub first_move_se: f64,
    /// Covariance of the ratings in Elo² (anchor row and column zero).
    pub covariance: Vec<Vec<f64>>,
    /// MM iterations used.
    pub iterations: usize,
}

impl Ratings {
    /// The 95% interval of agent `i`'s rating.
    pub fn interval(&self, i: usize) -> (f64, f64) {
        let half = crate::stats::Z95 * self.elo_se[i];
        (self.elo[i] - half, self.elo[i] + half)
    }

    /// Likelihood of superiority: the probability that `i` is truly
    /// stronger than `j`, from the normal approximation to their difference.
    pub fn los(&self, i: usize, j: usize) -> f64 {
        let diff = self.elo[i] - self.elo[j];
        let var = self.covariance[i][i] + self.covariance[j][j] - 2.0 * self.covariance[i][j];
        if var <= 0.0 {
            return if diff > 0.0 {
                1.0
            } else if diff < 0.0 {
                0.0
            } else {
                0.5
            };
        }
        normal_cdf(diff / var.sqrt())
    }
}

/// Φ, the standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit,
/// relative error below 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

const MAX_ITERATIONS: usize = 1_000_000;
const TOLERANCE: f64 = 1e-12;

/// Fits ratings to `table`.
pub fn fit(table: &GameTable, options: FitOptions) -> Result<Ratings, FitError> {
    let fitted = maximise(table, options)?;
    let covariance = expand(
        &invert(reduce(&information(&fitted), options.anchor)),
        options.anchor,
    );
    Ok(fitted.ratings(&covariance, options))
}

/// One game's result, for [`fit_clustered`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observed {
    /// The agent that moved first.
    pub light: usize,
    /// The agent that moved second.
    pub dark: usize,
    /// Light's score: 1 a win, 0 a loss, or any real number (a
    /// luck-adjusted score).
    pub light_score: f64,
    /// How much the game counts (1 for a plain game; the inverse of its
    /// pairing's dispersion in a weighted fit).
    pub weight: f64,
}

/// Fits ratings to the games of `clusters` (each a group of games whose
/// results may be correlated, as the two games of a pair are), with
/// intervals from the observed spread of the results rather than the
/// binomial spread the model implies: the cluster-robust ("sandwich")
/// covariance H⁻¹ (Σ_c u_c u_cᵀ) H⁻¹ · C/(C − 1), where H is the observed
/// information, u_c a cluster's score vector at the fit and C the number of
/// clusters (Liang and Zeger 1986; the estimates are those of [`fit`],
/// read as a quasi-likelihood when scores are not 0 or 1). It is what
/// luck-adjusted scores need: their spread is far below a game's, and the
/// binomial intervals would hide that.
pub fn fit_clustered(
    agents: usize,
    clusters: &[Vec<Observed>],
    options: FitOptions,
) -> Result<Ratings, FitError> {
    let mut table = GameTable::new(agents);
    for game in clusters.iter().flatten() {
        table.add_weighted(
            game.light,
            game.dark,
            game.weight,
            game.weight * game.light_score,
        );
    }
    let fitted = maximise(&table, options)?;
    let n = agents;
    let mut spread = vec![vec![0.0f64; n + 1]; n + 1];
    for cluster in clusters {
        let mut score = vec![0.0f64; n + 1];
        for game in cluster {
            let residual =
                game.weight * (game.light_score - fitted.light_wins(game.light, game.dark));
            score[game.light] += residual;
            score[game.dark] -= residual;
            score[n] += residual;
        }
        for x in 0..=n {
            for y in 0..=n {
                spread[x][y] += score[x] * score[y];
            }
        }
    }
    let count = clusters.len() as f64;
    let correction = if count > 1.0 {
        count / (count - 1.0)
    } else {
        1.0
    };
    let bread = invert(reduce(&information(&fitted), options.anchor));
    let meat = reduce(&spread, options.anchor);
    let sandwich = multiply(&multiply(&bread, &meat), &bread);
    let scaled: Vec<Vec<f64>> = sandwich
        .iter()
        .map(|row| row.iter().map(|v| v * correction).collect())
        .collect();
    Ok(fitted.ratings(&expand(&scaled, options.anchor), options))
}

/// The maximum of the likelihood: log-strengths and the first-move term,
/// with the data (prior included) they were fitted to.
struct Maximum {
    data: GameTable,
    strength: Vec<f64>,
    eta: f64,
    iterations: usize,
}

impl Maximum {
    /// The model's probability that `light` beats `dark`.
    fn light_wins(&self, light: usize, dark: usize) -> f64 {
        1.0 / (1.0 + (self.strength[dark] - self.strength[light] - self.eta).exp())
    }

    /// The ratings in Elo, with `covariance` (of the log-strengths and the
    /// first-move term, anchor row and column zero).
    fn ratings(&self, covariance: &[Vec<f64>], options: FitOptions) -> Ratings {
        let n = self.strength.len();
        let base = self.strength[options.anchor];
        let elo: Vec<f64> = self
            .strength
            .iter()
            .map(|r| options.anchor_elo + (r - base) * ELO_PER_NAT)
            .collect();
        let scale = ELO_PER_NAT * ELO_PER_NAT;
        let rating_cov: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| covariance[i][j] * scale).collect())
            .collect();
        Ratings {
            elo_se: (0..n).map(|i| rating_cov[i][i].max(0.0).sqrt()).collect(),
            covariance: rating_cov,
            elo,
            first_move_elo: self.eta * ELO_PER_NAT,
            first_move_se: covariance[n][n].max(0.0).sqrt() * ELO_PER_NAT,
            iterations: self.iterations,
        }
    }
}

/// Maximises the likelihood of `table` with the MM algorithm.
fn maximise(table: &GameTable, options: FitOptions) -> Result<Maximum, FitError> {
    let n = table.agents();
    if options.anchor >= n {
        return Err(FitError::BadAnchor {
            anchor: options.anchor,
            agents: n,
        });
    }
    let groups = table.components();
    if groups.len() > 1 {
        return Err(FitError::Disconnected { groups });
    }
    let data = table.with_prior(options.prior.max(0.0));
    let wins: Vec<f64> = (0..n).map(|i| data.points_of(i)).collect();
    let light_wins: f64 = (0..n)
        .flat_map(|h| (0..n).map(move |a| (h, a)))
        .map(|(h, a)| data.light_points(h, a))
        .sum();
    let mut gamma = vec![1.0f64; n];
    let mut theta = 1.0f64;
    let mut iterations = 0;
    if n > 1 {
        loop {
            iterations += 1;
            if iterations > MAX_ITERATIONS {
                return Err(FitError::NoConvergence(MAX_ITERATIONS));
            }
            let mut change = 0.0f64;
            for i in 0..n {
                let updated = if wins[i] > 0.0 {
                    wins[i] / mm_denominator(&data, &gamma, theta, i)
                } else {
                    // Only with prior 0 and a winless agent: its maximum is at 0.
                    gamma[i] * 1e-3
                };
                change = change.max((updated / gamma[i]).ln().abs());
                gamma[i] = updated;
            }
            let mut denominator = 0.0;
            for h in 0..n {
                for a in 0..n {
                    let games = data.games(h, a);
                    if games > 0.0 {
                        denominator += games * gamma[h] / (theta * gamma[h] + gamma[a]);
                    }
                }
            }
            let updated = (light_wins / denominator).max(f64::MIN_POSITIVE);
            change = change.max((updated / theta).ln().abs());
            theta = updated;
            // Keep the scale fixed (geometric mean 1) so values stay in range.
            let mean_log = gamma.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
            for g in &mut gamma {
                *g /= mean_log.exp();
            }
            if change < TOLERANCE {
                break;
            }
        }
    }
    Ok(Maximum {
        data,
        strength: gamma.iter().map(|g| g.ln()).collect(),
        eta: theta.ln(),
        iterations,
    })
}

/// The denominator of agent `i`'s MM update: its games, each weighted by
/// the model's current odds.
fn mm_denominator(data: &GameTable, gamma: &[f64], theta: f64, i: usize) -> f64 {
    let mut denominator = 0.0;
    for j in 0..data.agents() {
        let as_light = data.games(i, j);
        if as_light > 0.0 {
            denominator += as_light * theta / (theta * gamma[i] + gamma[j]);
        }
        let as_dark = data.games(j, i);
        if as_dark > 0.0 {
            denominator += as_dark / (theta * gamma[j] + gamma[i]);
        }
    }
    denominator
}

/// The observed information of (r₀ … rₙ₋₁, η) at the maximum, (n + 1)².
fn information(fitted: &Maximum) -> Vec<Vec<f64>> {
    let n = fitted.strength.len();
    let dim = n + 1;
    let mut info = vec![vec![0.0f64; dim]; dim];
    for h in 0..n {
        for a in 0..n {
            let games = fitted.data.games(h, a);
            if games <= 0.0 {
                continue;
            }
            let p = fitted.light_wins(h, a);
            let w = games * p * (1.0 - p);
            let v = [(h, 1.0), (a, -1.0), (n, 1.0)];
            for &(x, sx) in &v {
                for &(y, sy) in &v {
                    info[x][y] += w * sx * sy;
                }
            }
        }
    }
    info
}

/// `matrix` without the anchor's row and column.
fn reduce(matrix: &[Vec<f64>], anchor: usize) -> Vec<Vec<f64>> {
    let free: Vec<usize> = (0..matrix.len()).filter(|&k| k != anchor).collect();
    free.iter()
        .map(|&x| free.iter().map(|&y| matrix[x][y]).collect())
        .collect()
}

/// A matrix over the free parameters put back in place, the anchor's row
/// and column zero.
fn expand(reduced: &[Vec<f64>], anchor: usize) -> Vec<Vec<f64>> {
    let dim = reduced.len() + 1;
    let free: Vec<usize> = (0..dim).filter(|&k| k != anchor).collect();
    let mut out = vec![vec![0.0; dim]; dim];
    for (i, &x) in free.iter().enumerate() {
        for (j, &y) in free.iter().enumerate() {
            out[x][y] = reduced[i][j];
        }
    }
    out
}

fn multiply(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| (0..n).map(|k| a[i][k] * b[k][j]).sum())
                .collect()
        })
        .collect()
}

/// Gauss–Jordan inversion with partial pivoting; a singular direction
/// (which a connected table with a prior does not have) gets infinite variance.
fn invert(mut a: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap_or(col);
        if a[pivot][col].abs() < 1e-300 {
            inv[col][col] = f64::INFINITY;
            continue;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for j in 0..n {
            a[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for j in 0..n {
                        a[row][j] -= f * a[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn expected_light_score(light: f64, dark: f64, first: f64) -> f64 {
        1.0 / (1.0 + 10f64.powf((dark - light - first) / 400.0))
    }

    fn simulate(truth: &[f64], first: f64, games_per_seat: u32, seed: u64) -> GameTable {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = truth.len();
        let mut table = GameTable::new(n);
        for h in 0..n {
            for a in 0..n {
                if h == a {
                    continue;
                }
                let p = expected_light_score(truth[h], truth[a], first);
                for _ in 0..games_per_seat {
                    table.add(h, a, f64::from(u8::from(rng.random::<f64>() < p)));
                }
            }
        }
        table
    }

    #[test]
    fn exact_expected_scores_give_back_the_ratings() {
        // Fractional "games" at exactly the model's expected scores: the
        // maximum-likelihood fit (no prior) is the truth.
        let truth = [0.0, 150.0, 400.0, 900.0];
        let first = 35.0;
        let mut table = GameTable::new(truth.len());
        for h in 0..truth.len() {
            for a in 0..truth.len() {
                if h != a {
                    let p = expected_light_score(truth[h], truth[a], first);
                    table.add_weighted(h, a, 1000.0, 1000.0 * p);
                }
            }
        }
        let options = FitOptions {
            prior: 0.0,
            ..FitOptions::default()
        };
        let fitted = fit(&table, options).unwrap();
        for (f, t) in fitted.elo.iter().zip(truth) {
            assert!((f - t).abs() < 1e-6, "{:?}", fitted.elo);
        }
        assert!((fitted.first_move_elo - first).abs() < 1e-6);
    }

    /// Coverage: over 60 simulated tournaments of 5 agents (4 free ratings
    /// each, 240 intervals), the 95% intervals hold the true rating at least
    /// 90% of the time. (The binomial spread of 240 trials at 95% is 1.4%,
    /// so 90% is more than three deviations away: this fails only when the
    /// intervals are really too narrow.)
    #[test]
    fn simulated_ratings_are_recovered_within_their_intervals() {
        let truth = [0.0, 80.0, 200.0, 350.0, 600.0];
        let first = 25.0;
        let mut covered = 0;
        let mut total = 0;
        for seed in 0..60 {
            let table = simulate(&truth, first, 100, seed);
            let fitted = fit(&table, FitOptions::default()).unwrap();
            for (i, &t) in truth.iter().enumerate().skip(1) {
                let (low, high) = fitted.interval(i);
                total += 1;
                if low <= t && t <= high {
                    covered += 1;
                }
            }
            let half = crate::stats::Z95 * fitted.first_move_se;
            assert!(
                (fitted.first_move_elo - first).abs() < 2.0 * half,
                "{fitted:?}"
            );
        }
        let coverage = covered as f64 / total as f64;
        assert!(coverage >= 0.90, "coverage {coverage}");
        assert!(coverage <= 0.995, "intervals too wide? coverage {coverage}");
    }

    #[test]
    fn a_clean_sweep_gets_a_finite_rating_and_the_anchor_is_respected() {
        let mut table = GameTable::new(2);
        for _ in 0..50 {
            table.add(0, 1, 1.0);
            table.add(1, 0, 0.0);
        }
        let options = FitOptions {
            anchor: 1,
            anchor_elo: 1000.0,
            ..FitOptions::default()
        };
        let fitted = fit(&table, options).unwrap();
        assert_eq!(fitted.elo[1], 1000.0);
        assert_eq!(fitted.elo_se[1], 0.0);
        assert!(
            fitted.elo[0].is_finite() && fitted.elo[0] > 1400.0,
            "{fitted:?}"
        );
        assert!(fitted.los(0, 1) > 0.99);
    }

    #[test]
    fn ratings_do_not_depend_on_game_order() {
        let games: Vec<(usize, usize, f64)> = (0..300)
            .map(|k| {
                (
                    k % 3,
                    (k / 3 + 1 + k % 3) % 3,
                    f64::from(u8::from(k % 7 < 4)),
                )
            })
            .filter(|(h, a, _)| h != a)
            .collect();
        let forward = {
            let mut t = GameTable::new(3);
            games.iter().for_each(|&(h, a, s)| t.add(h, a, s));
            fit(&t, FitOptions::default()).unwrap()
        };
        let backward = {
            let mut t = GameTable::new(3);
            games.iter().rev().for_each(|&(h, a, s)| t.add(h, a, s));
            fit(&t, FitOptions::default()).unwrap()
        };
        for (x, y) in forward.elo.iter().zip(&backward.elo) {
            assert!((x - y).abs() < 1e-9);
        }
    }

    #[test]
    fn disconnected_agents_are_refused() {
        let mut table = GameTable::new(4);
        table.add(0, 1, 1.0);
        table.add(2, 3, 0.0);
        let err = fit(&table, FitOptions::default()).unwrap_err();
        assert_eq!(
            err,
            FitError::Disconnected {
                groups: vec![vec![0, 1], vec![2, 3]]
            }
        );
    }

    /// Pairs of games (each agent light once) whose light scores are the
    /// model's expectation plus uniform noise of ± `noise`: luck-adjusted
    /// scores in miniature.
    fn noisy_pairs(
        truth: &[f64],
        first: f64,
        pairs: u32,
        noise: f64,
        seed: u64,
    ) -> Vec<Vec<Observed>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = truth.len();
        let mut clusters = Vec::new();
        for h in 0..n {
            for a in (h + 1)..n {
                for _ in 0..pairs {
                    let mut pair = Vec::new();
                    for (light, dark) in [(h, a), (a, h)] {
                        let p = expected_light_score(truth[light], truth[dark], first);
                        let jitter = noise * (2.0 * rng.random::<f64>() - 1.0);
                        pair.push(Observed {
                            light,
                            dark,
                            light_score: p + jitter,
                            weight: 1.0,
                        });
                    }
                    clusters.push(pair);
                }
            }
        }
        clusters
    }

    #[test]
    fn clustered_intervals_follow_the_observed_spread_and_hold_the_truth() {
        let truth = [0.0, 40.0, 120.0, 300.0];
        let first = 20.0;
        let (mut covered, mut total) = (0, 0);
        for seed in 0..60 {
            let clusters = noisy_pairs(&truth, first, 100, 0.05, seed);
            // No prior: its pull toward a draw, harmless beside a game's
            // spread, is not beside these intervals.
            let options = FitOptions {
                prior: 0.0,
                ..FitOptions::default()
            };
            let fitted = fit_clustered(truth.len(), &clusters, options).unwrap();
            for (i, &t) in truth.iter().enumerate().skip(1) {
                let (low, high) = fitted.interval(i);
                total += 1;
                covered += usize::from(low <= t && t <= high);
            }
            // The same results fitted as independent binomial games: the
            // model's spread, ten times and more the observed one.
            let mut table = GameTable::new(truth.len());
            for game in clusters.iter().flatten() {
                table.add(game.light, game.dark, game.light_score);
            }
            let binomial = fit(&table, options).unwrap();
            for (i, &elo) in fitted.elo.iter().enumerate() {
                assert!((elo - binomial.elo[i]).abs() < 1e-9, "same estimates");
            }
            assert!(
                binomial.elo_se[3] > 10.0 * fitted.elo_se[3],
                "{binomial:?} {fitted:?}"
            );
        }
        let coverage = covered as f64 / total as f64;
        assert!((0.90..=0.995).contains(&coverage), "coverage {coverage}");
    }

    #[test]
    fn results_without_spread_have_intervals_of_width_zero() {
        let truth = [0.0, 150.0, 400.0];
        let clusters = noisy_pairs(&truth, 30.0, 10, 0.0, 1);
        let options = FitOptions {
            prior: 0.0,
            ..FitOptions::default()
        };
        let fitted = fit_clustered(truth.len(), &clusters, options).unwrap();
        for (i, &t) in truth.iter().enumerate() {
            assert!((fitted.elo[i] - t).abs() < 1e-6, "{fitted:?}");
            assert!(fitted.elo_se[i] < 1e-4, "{fitted:?}");
        }
    }

    #[test]
    fn normal_cdf_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.959_963_985) - 0.975).abs() < 1e-7);
        assert!((normal_cdf(-1.0) - 0.158_655_254).abs() < 1e-7);
    }
}
