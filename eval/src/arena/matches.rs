//! Paired-dice matches between two agents (duplicate play): each pair of
//! games uses one dice sequence, with the seats swapped, so the luck of the
//! dice cancels out of the comparison.

use crate::arena::entrant::Entrant;
use crate::arena::luck::LuckMeter;
use crate::arena::pairing::{Pair, Seating};
use crate::stats::{Interval, mean_interval};
use rayon::prelude::*;
use sawah_agents::SpecError;
use sawah_agents::heuristic::HasHeuristic;
use sawah_engine::Player;

pub use crate::arena::gamelog::{GameOutcome, MAX_ROLLS, play_game};

/// The seed of pair `index` of a match seeded with `seed` (SplitMix64 of their sum).
pub fn pair_seed(seed: u64, index: u64) -> u64 {
    use sawah_engine::seed::{GAMMA, mix64};
    mix64(
        seed.wrapping_add(index.wrapping_mul(GAMMA))
            .wrapping_add(GAMMA),
    )
}

/// The result of a match, from the first agent's side.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// The first agent's spec.
    pub first: String,
    /// The second agent's spec.
    pub second: String,
    /// The first agent's score in each pair (0, 0.5 or 1; quarter points
    /// when a game was stopped).
    pub pair_scores: Vec<f64>,
    /// Games the first agent won.
    pub first_wins: u64,
    /// Games the second agent won.
    pub second_wins: u64,
    /// Games stopped at [`MAX_ROLLS`].
    pub stopped: u64,
    /// Games won by the side that moved first (light).
    pub light_wins: u64,
    /// Mean rolls per game.
    pub mean_rolls: f64,
    /// Games ended by a forfeit.
    pub forfeits: u64,
    /// The first agent's luck-adjusted score in each pair, when the match
    /// measured luck ([`play_match_with_luck`]).
    pub adjusted_pair_scores: Option<Vec<f64>>,
    /// The reference that measured the luck.
    pub luck_reference: Option<String>,
}

impl MatchResult {
    /// Games played.
    pub fn games(&self) -> u64 {
        2 * self.pair_scores.len() as u64
    }

    /// The first agent's score with a 95% interval over pairs.
    pub fn score(&self) -> Interval {
        mean_interval(&self.pair_scores)
    }

    /// The first agent's luck-adjusted score with a 95% interval over
    /// pairs, when the match measured luck.
    pub fn adjusted_score(&self) -> Option<Interval> {
        self.adjusted_pair_scores.as_deref().map(mean_interval)
    }
}

fn score_for(outcome: GameOutcome, seat: Player) -> f64 {
    match outcome.winner {
        Some(w) if w == seat => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// Plays one pair with dice `dice_seed` (see [`crate::arena::pairing::Pair`]):
/// `first` moves first in the first game and second in the other.
pub fn play_pair_outcomes<G>(
    game: &G,
    first: &Entrant,
    second: &Entrant,
    dice_seed: u64,
) -> Result<(GameOutcome, GameOutcome), SpecError>
where
    G: HasHeuristic + 'static,
{
    crate::arena::pairing::Pair::new(first, second, dice_seed).play(game)
}

/// The first agent's score (0 to 1) in a pair played with dice `dice_seed`.
pub fn play_pair<G>(
    game: &G,
    first: &Entrant,
    second: &Entrant,
    dice_seed: u64,
) -> Result<f64, SpecError>
where
    G: HasHeuristic + 'static,
{
    Ok(pair_score(play_pair_outcomes(
        game, first, second, dice_seed,
    )?))
}

/// Plays `games` games (rounded up to whole pairs) of `first` against
/// `second`, pairs in parallel. Each agent's seed is mixed with the pair's
/// seed so that random and noisy agents vary from pair to pair; everything
/// follows from `seed`.
///
/// # Examples
///
/// The heuristic against random play on ur, 20 games on paired dice (each
/// dice sequence played twice, seats swapped): the same seed plays the
/// same games.
///
/// ```
/// use sawah_agents::AgentSpec;
/// use sawah_engine::race;
/// use sawah_eval::arena::entrant::Entrant;
/// use sawah_eval::arena::matches::play_match;
///
/// let ur = race::preset("ur").unwrap();
/// let heuristic = Entrant::from(AgentSpec::parse("heuristic", "ur").unwrap());
/// let random = Entrant::from(AgentSpec::parse("random", "ur").unwrap());
/// let result = play_match(&ur, &heuristic, &random, 20, 1).unwrap();
/// assert_eq!(result.games(), 20);
/// assert!(result.score().mean > 0.5);
/// let again = play_match(&ur, &heuristic, &random, 20, 1).unwrap();
/// assert_eq!(again.score().mean, result.score().mean);
/// ```
pub fn play_match<G>(
    game: &G,
    first: &Entrant,
    second: &Entrant,
    games: u64,
    seed: u64,
) -> Result<MatchResult, SpecError>
where
    G: HasHeuristic + Sync + 'static,
{
    let pairs = games.div_ceil(2).max(1);
    let outcomes: Vec<(GameOutcome, GameOutcome)> = (0..pairs)
        .into_par_iter()
        .map(|index| play_pair_outcomes(game, first, second, pair_seed(seed, index)))
        .collect::<Result<_, SpecError>>()?;
    Ok(tally(first, second, outcomes, None))
}

/// Why a luck-adjusted match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum LuckMatchError {
    /// An agent could not be built.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The reference could not measure a game's luck.
    #[error("measuring the luck of a game: {0}")]
    Luck(String),
}

/// [`play_match`] with every game recorded and its luck measured by
/// `meter`: the same games, and beside the raw scores the luck-adjusted
/// ones (see [`crate::arena::luck`]). The measuring runs on the match's threads.
pub fn play_match_with_luck<G>(
    game: &G,
    first: &Entrant,
    second: &Entrant,
    games: u64,
    seed: u64,
    meter: &dyn LuckMeter,
) -> Result<MatchResult, LuckMatchError>
where
    G: HasHeuristic + Sync + 'static,
{
    play_match_with_luck_observed(game, first, second, games, seed, meter, &|_| {})
}

/// [`play_match_with_luck`], telling `observe` the pairs finished so far
/// after each pair (in any order: pairs are played in parallel).
pub fn play_match_with_luck_observed<G>(
    game: &G,
    first: &Entrant,
    second: &Entrant,
    games: u64,
    seed: u64,
    meter: &dyn LuckMeter,
    observe: &(dyn Fn(u64) + Sync),
) -> Result<MatchResult, LuckMatchError>
where
    G: HasHeuristic + Sync + 'static,
{
    let pairs = games.div_ceil(2).max(1);
    let done = std::sync::atomic::AtomicU64::new(0);
    let played: Vec<((GameOutcome, GameOutcome), f64)> = (0..pairs)
        .into_par_iter()
        .map(|index| {
            let pair = play_pair_with_luck(game, first, second, pair_seed(seed, index), meter);
            observe(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
            pair
        })
        .collect::<Result<_, LuckMatchError>>()?;
    let (outcomes, adjusted): (Vec<_>, Vec<_>) = played.into_iter().unzip();
    let mut result = tally(first, second, outcomes, Some(adjusted));
    result.luck_reference = Some(meter.reference().name.clone());
    Ok(result)
}

/// Plays one pair with dice `dice_seed`, recorded, and measures each
/// game's luck: the outcomes (first agent on light, then on dark) and the
/// first agent's luck-adjusted pair score.
pub fn play_pair_with_luck<G>(
    game: &G,
    first: &Entrant,
    second: &Entrant,
    dice_seed: u64,
    meter: &dyn LuckMeter,
) -> Result<((GameOutcome, GameOutcome), f64), LuckMatchError>
where
    G: HasHeuristic + 'static,
{
    let pair = Pair::new(first, second, dice_seed);
    let mut outcomes = Vec::with_capacity(2);
    let mut adjusted = 0.0;
    for seating in Seating::BOTH {
        let first_is_light = seating == Seating::FirstLight;
        let recorded = pair.play_recorded(game, seating).map_err(|(_, e)| e)?;
        let luck = meter.luck(&recorded.moves).map_err(LuckMatchError::Luck)?;
        let seat = if first_is_light {
            Player::Light
        } else {
            Player::Dark
        };
        let result = score_for(recorded.outcome, seat);
        adjusted += luck.adjusted(result, first_is_light) / 2.0;
        outcomes.push(recorded.outcome);
    }
    Ok(((outcomes[0], outcomes[1]), adjusted))
}

/// The first agent's raw score in a pair of `outcomes`.
pub fn pair_score(outcomes: (GameOutcome, GameOutcome)) -> f64 {
    (score_for(outcomes.0, Player::Light) + score_for(outcomes.1, Player::Dark)) / 2.0
}

/// The match result of the pairs' `outcomes` (first agent on light, then
/// on dark), with the adjusted pair scores if measured.
fn tally(
    first: &Entrant,
    second: &Entrant,
    outcomes: Vec<(GameOutcome, GameOutcome)>,
    adjusted_pair_scores: Option<Vec<f64>>,
) -> MatchResult {
    let mut result = MatchResult {
        first: first.to_string(),
        second: second.to_string(),
        pair_scores: Vec::with_capacity(outcomes.len()),
        first_wins: 0,
        second_wins: 0,
        stopped: 0,
        light_wins: 0,
        mean_rolls: 0.0,
        forfeits: 0,
        adjusted_pair_scores,
        luck_reference: None,
    };
    let mut rolls = 0u64;
    for (a_light, a_dark) in outcomes {
        result.pair_scores.push(pair_score((a_light, a_dark)));
        for (outcome, a_seat) in [(a_light, Player::Light), (a_dark, Player::Dark)] {
            rolls += outcome.rolls;
            result.forfeits += u64::from(outcome.forfeit);
            match outcome.winner {
                None => result.stopped += 1,
                Some(w) => {
                    if w == a_seat {
                        result.first_wins += 1;
                    } else {
                        result.second_wins += 1;
                    }
                    if w == Player::Light {
                        result.light_wins += 1;
                    }
                }
            }
        }
    }
    result.mean_rolls = rolls as f64 / result.games() as f64;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_agents::{AgentSpec, RandomAgent};
    use sawah_engine::race;

    #[test]
    fn pair_seeds_stay_what_results_files_recorded() {
        // The dice seed of pair 0 with seed 1, as every results file and
        // docs/tournaments.md have it: a resumed or merged run depends on it.
        assert_eq!(pair_seed(1, 0), 10_451_216_379_200_822_465);
        assert_ne!(pair_seed(1, 1), pair_seed(1, 0));
    }

    #[test]
    fn a_game_is_a_function_of_its_seeds() {
        let rules = race::preset("ur").unwrap();
        let mut a = RandomAgent::new(1);
        let mut b = RandomAgent::new(2);
        let first = play_game(&rules, &mut a, &mut b, 77);
        let mut a = RandomAgent::new(1);
        let mut b = RandomAgent::new(2);
        let again = play_game(&rules, &mut a, &mut b, 77);
        assert_eq!(first, again);
        let mut a = RandomAgent::new(1);
        let mut b = RandomAgent::new(2);
        assert_ne!(
            play_game(&rules, &mut a, &mut b, 78),
            first,
            "other dice, another game"
        );
    }

    #[test]
    fn a_match_is_reproducible_and_counts_add_up() {
        let rules = race::preset("ur-2").unwrap();
        let a = Entrant::from(AgentSpec::parse("heuristic", "ur-2").unwrap());
        let b = Entrant::from(AgentSpec::parse("random", "ur-2").unwrap());
        let one = play_match(&rules, &a, &b, 41, 5).unwrap();
        let two = play_match(&rules, &a, &b, 41, 5).unwrap();
        assert_eq!(one.pair_scores, two.pair_scores);
        assert_eq!(one.games(), 42);
        assert_eq!(one.first_wins + one.second_wins + one.stopped, 42);
        assert!(
            one.score().mean > 0.5,
            "the heuristic beats random: {:?}",
            one.score()
        );
    }

    #[test]
    fn pairs_share_dice_and_swap_seats() {
        // A deterministic agent against itself: both games of a pair see the
        // same dice, so they are the same game and the same colour wins: the
        // pair scores exactly 1/2. (Different dice per seat would not.)
        let rules = race::preset("sawah-2").unwrap();
        let spec = Entrant::from(AgentSpec::parse("heuristic", "sawah-2").unwrap());
        let result = play_match(&rules, &spec, &spec, 20, 9).unwrap();
        assert!(
            result.pair_scores.iter().all(|&s| s == 0.5),
            "{:?}",
            result.pair_scores
        );
    }
}

#[cfg(test)]
mod strength {
    use super::*;
    use sawah_agents::AgentSpec;
    use sawah_engine::{race, senet::Senet};

    /// Deterministic (seeded) games, so these are facts about the agents,
    /// not timing: the hand-made evaluation beats random play clearly, and
    /// one ply of search beats no search.
    #[test]
    fn the_heuristic_beats_random_and_search_beats_the_heuristic() {
        let rules = race::preset("ur").unwrap();
        let spec = |s: &str| Entrant::from(AgentSpec::parse(s, "ur").unwrap());
        let score = play_match(&rules, &spec("heuristic"), &spec("random"), 200, 11)
            .unwrap()
            .score();
        assert!(score.low > 0.9, "ur heuristic vs random: {score:?}");
        let senet = Senet::new();
        let score = play_match(&senet, &spec("heuristic"), &spec("random"), 1000, 12)
            .unwrap()
            .score();
        assert!(score.low > 0.65, "senet heuristic vs random: {score:?}");
        let score = play_match(
            &rules,
            &spec("expectiminimax:depth=1"),
            &spec("heuristic"),
            300,
            13,
        )
        .unwrap()
        .score();
        assert!(score.mean > 0.5, "ur depth 1 vs heuristic: {score:?}");
    }
}
