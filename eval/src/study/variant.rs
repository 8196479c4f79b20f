//! A report on a rule set, for people designing variants
//! (`sawah rules NAME --report`, `docs/variants.md`): how much moving first
//! is worth, how much skill matters, how long games last, how often a roll
//! offers a real choice, and what each first roll is worth.
//!
//! With a solved table the first player's advantage and the first rolls'
//! values are exact, and the games measured are perfect play against
//! itself; without one they come from games of hard against itself and the
//! hint reference. Every game is seeded from the report's seed.

use crate::arena::entrant::Entrant;
use crate::arena::matches::{MatchResult, pair_seed, play_match};
use crate::stats::{Interval, wilson};
use rayon::prelude::*;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::{AgentSpec, SpecError};
use sawah_engine::turns::{Ending, Turn, play_turns};
use sawah_engine::{DiceSource, Player};
use std::convert::Infallible;

/// What games of one agent against itself show.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlay {
    /// The agent.
    pub agent: String,
    /// Games played.
    pub games: u64,
    /// The first player's share of wins, with its 95% interval.
    pub first_player_wins: Interval,
    /// Rolls per game: mean (with its 95% interval) and standard deviation.
    pub rolls: Interval,
    /// The standard deviation of rolls per game.
    pub rolls_sd: f64,
    /// Rolls per game at the 10th, 50th and 90th percentiles.
    pub rolls_percentiles: [u64; 3],
    /// The share of rolls with a move whose moves reach at least two
    /// different positions (a real choice).
    pub choice_share: f64,
    /// The share of rolls with no legal move (a pass).
    pub pass_share: f64,
}

/// Plays `games` games of `spec` against itself (both seats the same
/// spec, each game's seeds from `seed`) in parallel and measures them.
pub fn self_play<G>(
    game: &G,
    spec: &AgentSpec,
    games: u64,
    seed: u64,
) -> Result<SelfPlay, SpecError>
where
    G: HasHeuristic + Sync + 'static,
{
    let games = games.max(1);
    let results: Vec<(Option<Player>, u64, u64, u64)> = (0..games)
        .into_par_iter()
        .map(|index| one_game(game, spec, pair_seed(seed, index)))
        .collect::<Result<_, _>>()?;
    let finished: Vec<f64> = results
        .iter()
        .filter_map(|r| r.0.map(|w| f64::from(u8::from(w == Player::Light))))
        .collect();
    let light = finished.iter().sum::<f64>();
    let rolls: Vec<f64> = results.iter().map(|r| r.1 as f64).collect();
    let mut sorted: Vec<u64> = results.iter().map(|r| r.1).collect();
    sorted.sort_unstable();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    let mean = rolls.iter().sum::<f64>() / rolls.len() as f64;
    let sd = (rolls.iter().map(|r| (r - mean).powi(2)).sum::<f64>()
        / (rolls.len() as f64 - 1.0).max(1.0))
    .sqrt();
    // Rolls are not scores in [0, 1]: the normal interval of the mean, unclamped.
    let half = 1.96 * sd / (rolls.len() as f64).sqrt();
    let total_rolls: u64 = results.iter().map(|r| r.1).sum();
    let choices: u64 = results.iter().map(|r| r.2).sum();
    let passes: u64 = results.iter().map(|r| r.3).sum();
    Ok(SelfPlay {
        agent: spec.to_string(),
        games,
        first_player_wins: wilson(light / finished.len().max(1) as f64, finished.len() as f64),
        rolls: Interval {
            mean,
            low: mean - half,
            high: mean + half,
        },
        rolls_sd: sd,
        rolls_percentiles: [at(0.1), at(0.5), at(0.9)],
        choice_share: choices as f64 / total_rolls.max(1) as f64,
        pass_share: passes as f64 / total_rolls.max(1) as f64,
    })
}

/// One game: the winner, the rolls, the rolls with a real choice, the passes.
fn one_game<G: HasHeuristic + 'static>(
    game: &G,
    spec: &AgentSpec,
    seed: u64,
) -> Result<(Option<Player>, u64, u64, u64), SpecError> {
    let build = |mix: u64| {
        AgentSpec {
            seed: spec.seed ^ mix,
            ..spec.clone()
        }
        .build(game)
    };
    let mut agents = [build(seed)?, build(seed.rotate_left(17))?];
    let mut dice = DiceSource::from_seed(seed);
    let (mut choices, mut passes) = (0, 0);
    let decide = |turn: Turn<'_, G>| {
        let first = game.apply(turn.position, turn.moves[0]).position;
        if turn
            .moves
            .iter()
            .any(|&m| game.apply(turn.position, m).position != first)
        {
            choices += 1;
        }
        let seat = usize::from(turn.seat == Player::Dark);
        Ok::<_, Infallible>(agents[seat].choose(game, turn.position, turn.roll, turn.moves))
    };
    let played = play_turns(game, game.start(), &mut dice, decide, |_, mv| {
        passes += u64::from(mv.is_none());
    });
    let winner = match played.ending {
        Ending::Won(winner) => Some(winner),
        Ending::RollLimit => None,
        Ending::Stopped { failure, .. } => match failure {},
    };
    Ok((winner, played.rolls, choices, passes))
}

/// How much skill matters: `stronger` against `weaker` over `games`
/// paired games.
pub fn skill<G>(
    game: &G,
    stronger: &AgentSpec,
    weaker: &AgentSpec,
    games: u64,
    seed: u64,
) -> Result<MatchResult, SpecError>
where
    G: HasHeuristic + Sync + 'static,
{
    play_match(
        game,
        &Entrant::from(stronger.clone()),
        &Entrant::from(weaker.clone()),
        games,
        seed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;

    #[test]
    fn self_play_counts_add_up_and_repeat_with_the_seed() {
        let rules = race::preset("ur-2").unwrap();
        let spec = AgentSpec::parse("heuristic", "ur-2").unwrap();
        let a = self_play(&rules, &spec, 200, 3).unwrap();
        assert_eq!(a, self_play(&rules, &spec, 200, 3).unwrap());
        assert!(a.rolls.mean > 4.0 && a.rolls_sd > 0.0);
        assert!(
            a.rolls.low < a.rolls.mean && a.rolls.mean < a.rolls.high,
            "{:?}",
            a.rolls
        );
        assert!(a.rolls_percentiles[0] <= a.rolls_percentiles[1]);
        assert!(a.rolls_percentiles[1] <= a.rolls_percentiles[2]);
        assert!((0.0..=1.0).contains(&a.choice_share) && a.choice_share > 0.0);
        // ur-2 rolls 0 one time in sixteen: at least that many passes.
        assert!(a.pass_share >= 1.0 / 16.0 * 0.7, "{}", a.pass_share);
        assert!(a.first_player_wins.low < a.first_player_wins.mean);
    }
}
