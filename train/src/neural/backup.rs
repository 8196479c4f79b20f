//! Targets from search: the expectimax value of a position under the
//! network being trained, a few rolls deep, exact where the game is over
//! or an exact table knows the position. Where TD(λ) follows the dice of
//! one game, a backed-up value averages over every roll, so its noise is
//! the network's alone, and values known exactly (finished games, a
//! partial table's late layers) reach the positions before them at once.
//! Training on these targets and playing with the network trained is
//! expert iteration, the table route's distillation with search in the
//! table's place.

use crate::neural::selfplay::Exact;
use sawah_agents::evaluator::terminal_value;
use sawah_agents::neural::{Encode, NeuralNet};

/// The value of `position` for its side to move, searched `depth` rolls
/// deep: finished positions and those `exact` knows are worth their exact
/// value; at depth 0 the network's; otherwise the expectation over the
/// rolls of the best move's value for the mover (an extra roll keeps the
/// value as it is, a move that hands over the turn counts as `1 − v`, and
/// a roll with no move passes).
pub fn backed_up_value<G: Encode>(
    net: &NeuralNet,
    game: &G,
    position: &G::Position,
    depth: u8,
    exact: Option<Exact<'_, G::Position>>,
) -> f64 {
    if let Some(known) =
        terminal_value(game, position).or_else(|| exact.and_then(|values| values(position)))
    {
        return known;
    }
    if depth == 0 {
        return net.evaluate(game, position);
    }
    let mover = game.turn(position);
    let for_mover = |after: &G::Position| {
        let own = backed_up_value(net, game, after, depth - 1, exact);
        if game.turn(after) == mover {
            own
        } else {
            1.0 - own
        }
    };
    game.dice()
        .outcomes()
        .map(|(roll, probability)| {
            let moves = game.legal_moves(position, roll);
            let best = if moves.is_empty() {
                for_mover(&game.pass(position))
            } else {
                moves
                    .iter()
                    .map(|&mv| for_mover(&game.apply(position, mv).position))
                    .fold(f64::NEG_INFINITY, f64::max)
            };
            probability * best
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_agents::Evaluator;
    use sawah_agents::neural::NeuralEvaluator;
    use sawah_agents::search::{Search, SearchOptions};
    use sawah_engine::race;
    use std::sync::Arc;

    /// The backed-up value is plain expectiminimax's: the agents' search
    /// (pruning off, the reference) gives the same value at each depth.
    #[test]
    fn the_backed_up_value_is_the_searchs_position_value() {
        let rules = race::preset("ur-2").unwrap();
        let net = NeuralNet::with_random_weights(&rules, &[8], 3).unwrap();
        let evaluator = NeuralEvaluator::new(Arc::new(net.clone()));
        let mut position = rules.start();
        for step in 0..12 {
            for depth in 0..=2 {
                let mine = backed_up_value(&net, &rules, &position, depth, None);
                let options = SearchOptions {
                    pruning: false,
                    ..SearchOptions::default()
                };
                let theirs =
                    Search::new(&rules, &evaluator, options).position_value(&position, depth);
                assert!(
                    (mine - theirs).abs() < 1e-12,
                    "step {step} depth {depth}: {mine} {theirs}"
                );
            }
            let roll = 1 + step % 4;
            position = match rules.legal_moves(&position, roll as u8).first() {
                Some(&mv) => rules.apply(&position, mv).position,
                None => rules.pass(&position),
            };
            if rules.winner(&position).is_some() {
                break;
            }
        }
        assert_eq!(
            evaluator.evaluate(&rules, &rules.start()),
            net.evaluate(&rules, &rules.start())
        );
    }

    /// Where `exact` knows a position, its value is taken as is, at any
    /// depth, and it flows back into the positions before it.
    #[test]
    fn exact_values_stand_for_the_search_below_them() {
        let rules = race::preset("ur-1").unwrap();
        let net = NeuralNet::with_random_weights(&rules, &[8], 3).unwrap();
        let start = rules.start();
        let everything = |_: &race::Position| Some(0.25);
        for depth in 0..=2 {
            assert_eq!(
                backed_up_value(&net, &rules, &start, depth, Some(&everything)),
                0.25
            );
        }
        // Every successor worth 0.25 to whoever moves there: the start is
        // worth 0.75 to its mover (every roll hands the turn over, or is an
        // extra roll onto a rosette: then 0.25 as is).
        let not_start = |p: &race::Position| (*p != start).then_some(0.25);
        let value = backed_up_value(&net, &rules, &start, 1, Some(&not_start));
        assert!((0.25..=0.75).contains(&value), "{value}");
    }
}
