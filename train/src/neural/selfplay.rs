//! Self-play games for training: the current network plays both sides,
//! greedily over the positions after each move (with a little exploration),
//! and every position met becomes a training sample whose target is the
//! TD(λ) return of the game (or, when a teacher is given, its exact value).

use rayon::prelude::*;
use sawah_agents::evaluator::terminal_value;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::{Encode, NeuralNet};
use sawah_engine::{DiceSource, Game};

/// Exact values of positions (a solved table), the teacher of distillation.
pub type Teacher<'a, P> = &'a (dyn Fn(&P) -> f64 + Sync);

/// Exact values where they are known (a Senet endgame table): `None`
/// elsewhere. A self-play game stops at the first position that has one,
/// which ends its λ-returns with that exact value, and moves are chosen by
/// them where they apply (as the agents do with `endgame=FILE`).
pub type Exact<'a, P> = &'a (dyn Fn(&P) -> Option<f64> + Sync);

/// What is known exactly besides the network: a teacher for every position
/// (distillation) and exact values for some ([`Exact`]).
#[derive(Clone, Copy)]
pub struct Known<'a, P> {
    /// The targets of distillation, when distilling.
    pub teacher: Option<Teacher<'a, P>>,
    /// Exact values where known.
    pub exact: Option<Exact<'a, P>>,
}

/// One training sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The active inputs of the position (seen from its side to move).
    pub active: Vec<u16>,
    /// What the network should output.
    pub target: f32,
    /// What it output when the game was played (for the TD error).
    pub predicted: f32,
    /// The hand-made evaluation's features of the position (for learning
    /// its weights from the same targets).
    pub features: Vec<f32>,
}

/// Games longer than this are cut off (no game has come near it).
const MAX_ROLLS: usize = 20_000;

/// The value of `position` for its side to move: exact when finished or
/// when `exact` knows it.
fn value<G: Encode>(
    net: &NeuralNet,
    game: &G,
    position: &G::Position,
    exact: Option<Exact<'_, G::Position>>,
) -> f64 {
    terminal_value(game, position)
        .or_else(|| exact.and_then(|known| known(position)))
        .unwrap_or_else(|| net.evaluate(game, position))
}

/// Plays one game and returns its positions before each roll with the
/// network's values (until the first position `exact` knows, if any, which
/// ends the list with its exact value).
fn play<G: Encode>(
    net: &NeuralNet,
    game: &G,
    exploration: f64,
    seed: u64,
    exact: Option<Exact<'_, G::Position>>,
) -> (Vec<G::Position>, Vec<f64>) {
    let mut dice = DiceSource::from_seed(seed);
    let mut position = game.start();
    let mut positions = Vec::with_capacity(256);
    let mut values = Vec::with_capacity(256);
    let known = |p: &G::Position| exact.is_some_and(|values| values(p).is_some());
    // The network's value of the position reached by the greedy choice,
    // computed while choosing it (so it is not evaluated twice).
    let mut reached: Option<f64> = None;
    while game.winner(&position).is_none() && !known(&position) && positions.len() < MAX_ROLLS {
        positions.push(position);
        values.push(
            reached
                .take()
                .unwrap_or_else(|| net.evaluate(game, &position)),
        );
        let roll = dice.roll(game.dice());
        let moves = game.legal_moves(&position, roll);
        if moves.is_empty() {
            position = game.pass(&position);
            continue;
        }
        let explore =
            exploration > 0.0 && (dice.below(1 << 20) as f64) < exploration * f64::from(1u32 << 20);
        let chosen = if explore {
            moves[dice.below(moves.len())]
        } else {
            let mover = game.turn(&position);
            // (value for the mover, move, value for the side to move after it)
            let mut best = (f64::NEG_INFINITY, moves[0], 0.0);
            for &mv in moves.iter() {
                let after = game.apply(&position, mv).position;
                let own = value(net, game, &after, exact);
                let v = if game.turn(&after) == mover {
                    own
                } else {
                    1.0 - own
                };
                if v > best.0 {
                    best = (v, mv, own);
                }
            }
            reached = Some(best.2);
            best.1
        };
        position = game.apply(&position, chosen).position;
    }
    positions.push(position);
    values.push(value(net, game, &position, exact));
    (positions, values)
}

/// The TD(λ) returns of a game: for position t (side to move m_t),
/// G_t = (1 − λ)·v_{t+1} + λ·G_{t+1}, every term turned into m_t's view,
/// with the finished position's exact value at the end.
pub fn lambda_returns<G: Game>(
    game: &G,
    positions: &[G::Position],
    values: &[f64],
    lambda: f64,
) -> Vec<f64> {
    let n = positions.len();
    let mut returns = vec![0.0; n];
    if n == 0 {
        return returns;
    }
    returns[n - 1] = values[n - 1];
    for t in (0..n - 1).rev() {
        let same = game.turn(&positions[t]) == game.turn(&positions[t + 1]);
        let view = |x: f64| if same { x } else { 1.0 - x };
        returns[t] = (1.0 - lambda) * view(values[t + 1]) + lambda * view(returns[t + 1]);
    }
    returns
}

/// Plays `games` games in parallel (game `i` with dice seed `seeds(i)`) and
/// returns their samples in game order: targets are λ-returns, or the
/// teacher's values where `known` has a teacher. Finished positions are
/// left out (their value is known exactly); with exact values known, games
/// end at the first position that has one, whose sample has that exact
/// value as target.
pub fn generate<G>(
    net: &NeuralNet,
    game: &G,
    games: u64,
    exploration: f64,
    lambda: f64,
    seed_of: impl Fn(u64) -> u64 + Sync,
    known: Known<'_, G::Position>,
) -> Vec<Sample>
where
    G: HasHeuristic + Sync,
    G::Position: Send,
{
    let per_game: Vec<Vec<Sample>> = (0..games)
        .into_par_iter()
        .map(|i| {
            let (positions, values) = play(net, game, exploration, seed_of(i), known.exact);
            let targets = match known.teacher {
                Some(label) => positions.iter().map(label).collect(),
                None => lambda_returns(game, &positions, &values, lambda),
            };
            positions
                .iter()
                .zip(values.iter().zip(targets))
                .filter(|(p, _)| game.winner(p).is_none())
                .map(|(p, (&v, t))| {
                    let mut active = Vec::with_capacity(64);
                    net.encode(game, p, &mut active);
                    Sample {
                        active,
                        target: t as f32,
                        predicted: v as f32,
                        features: game
                            .heuristic_features(p)
                            .iter()
                            .map(|&f| f as f32)
                            .collect(),
                    }
                })
                .collect()
        })
        .collect();
    per_game.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;

    #[test]
    fn lambda_one_gives_the_outcome_and_lambda_zero_the_next_value() {
        let rules = race::preset("ur-1").unwrap();
        // A short fake sequence: positions alternate sides (passes).
        let p0 = rules.start();
        let p1 = rules.pass(&p0);
        let p2 = rules.pass(&p1);
        let positions = [p0, p1, p2];
        let values = [0.5, 0.3, 0.9];
        let ones = lambda_returns(&rules, &positions, &values, 1.0);
        // p2's side is p0's side: 0.9 for p0, 0.1 for p1.
        assert!((ones[0] - 0.9).abs() < 1e-12);
        assert!((ones[1] - 0.1).abs() < 1e-12);
        let zeros = lambda_returns(&rules, &positions, &values, 0.0);
        assert!((zeros[0] - (1.0 - 0.3)).abs() < 1e-12);
        assert!((zeros[1] - (1.0 - 0.9)).abs() < 1e-12);
    }
}
