//! Self-play games for training: the current network plays both sides,
//! greedily over the positions after each move (with a little exploration),
//! and every position met becomes a training sample whose target is the
//! TD(λ) return of the game (or, when a teacher is given, its exact value).

use rayon::prelude::*;
use sawah_agents::evaluator::terminal_value;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::{Encode, NeuralNet};
use sawah_engine::turns::{Turn, play_turns_until};
use sawah_engine::{DiceSource, Game};
use std::cell::Cell;

/// Exact values of positions (a solved table), the teacher of distillation.
pub type Teacher<'a, P> = &'a (dyn Fn(&P) -> f64 + Sync);

/// Exact values where they are known (a Senet endgame table, a race rule
/// set's partial table): `None` elsewhere. Moves are chosen by them where
/// they apply (as the agents do with `endgame=FILE`), a position known
/// exactly has its exact value as target, and λ-returns and searches take
/// them as they are; with [`Known::stop_at_exact`] a game stops at the
/// first position known exactly instead.
pub type Exact<'a, P> = &'a (dyn Fn(&P) -> Option<f64> + Sync);

/// What is known exactly besides the network: a teacher for every position
/// (distillation) and exact values for some ([`Exact`]).
#[derive(Clone, Copy)]
pub struct Known<'a, P> {
    /// The targets of distillation, when distilling.
    pub teacher: Option<Teacher<'a, P>>,
    /// Exact values where known.
    pub exact: Option<Exact<'a, P>>,
    /// Whether a game stops at the first position `exact` knows (for a
    /// network that always plays beside its table); otherwise games play
    /// on, so the network learns those positions from their exact values
    /// too (for a network that plays alone).
    pub stop_at_exact: bool,
    /// With a teacher: at every roll whose moves the teacher values at
    /// least this far apart for the mover (best minus worst), the positions
    /// all of them reach become samples too, not only the one played (see
    /// [`choice_positions`]).
    pub choice_margin: Option<f64>,
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

/// One position a choice can reach, as a training sample's parts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChoiceSample<P> {
    /// The position a move reaches.
    pub position: P,
    /// The network's value of it (for its side to move).
    pub predicted: f64,
    /// The teacher's value of it (for its side to move).
    pub target: f64,
}

/// The positions a roll's moves reach (with the network's values, for the
/// side to move there), as samples of the choice when the teacher values
/// them at least `margin` apart for `mover`: where the choice matters, the
/// network must rank every move's result, not only value the one played.
/// Finished positions and repeats are left out (a finished position's value
/// is known; two moves may reach the same position). Empty when the choice
/// does not matter that much.
pub fn choice_positions<G: Game>(
    game: &G,
    mover: sawah_engine::Player,
    reached: &[(G::Position, f64)],
    teacher: Teacher<'_, G::Position>,
    margin: f64,
) -> Vec<ChoiceSample<G::Position>> {
    if reached.len() < 2 {
        return Vec::new();
    }
    // Each position's exact value for its side to move, and whether the
    // game is over there (one terminal check per position).
    let exact: Vec<(f64, bool)> = reached
        .iter()
        .map(|(p, _)| match terminal_value(game, p) {
            Some(value) => (value, true),
            None => (teacher(p), false),
        })
        .collect();
    let (worst, best) = reached
        .iter()
        .zip(&exact)
        .map(|((p, _), &(value, _))| {
            if game.turn(p) == mover {
                value
            } else {
                1.0 - value
            }
        })
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if best - worst < margin {
        return Vec::new();
    }
    let mut out: Vec<ChoiceSample<G::Position>> = Vec::with_capacity(reached.len());
    for (&(position, predicted), &(target, finished)) in reached.iter().zip(&exact) {
        if !finished && !out.iter().any(|c| c.position == position) {
            out.push(ChoiceSample {
                position,
                predicted,
                target,
            });
        }
    }
    out
}

/// One played game: its positions before each roll with the network's
/// values, and the positions of the choices that mattered (see
/// [`choice_positions`]) with theirs.
struct Played<P> {
    positions: Vec<P>,
    values: Vec<f64>,
    choices: Vec<ChoiceSample<P>>,
}

/// Plays one game through the engine's game loop and returns its
/// positions before each roll with their values (the network's, exact
/// where `exact` knows them), stopping at the first position `exact`
/// knows when `stop` says so (its exact value then ends the list), and,
/// when `choices` gives a teacher and a margin, the positions of the
/// choices that mattered. Exploration draws from the game's dice.
fn play<G: Encode>(
    net: &NeuralNet,
    game: &G,
    exploration: f64,
    seed: u64,
    (exact, stop): (Option<Exact<'_, G::Position>>, bool),
    choices: Option<(Teacher<'_, G::Position>, f64)>,
) -> Played<G::Position> {
    let mut dice = DiceSource::from_seed(seed);
    let mut positions = Vec::with_capacity(256);
    let mut values = Vec::with_capacity(256);
    let mut chosen_among = Vec::new();
    // The network's value of the position reached by the greedy choice,
    // computed while choosing it (so it is not evaluated twice).
    let reached: Cell<Option<f64>> = Cell::new(None);
    // Before each roll the position becomes a sample, unless the game
    // stops at positions `exact` knows and knows this one.
    let before_roll = |position: &G::Position| {
        let known = exact.and_then(|values| values(position));
        if stop && known.is_some() {
            return Err(KnownExactly);
        }
        positions.push(*position);
        let value = reached.take();
        values.push(
            known
                .or(value)
                .unwrap_or_else(|| net.evaluate(game, position)),
        );
        Ok(())
    };
    let decide = |turn: Turn<'_, G>| {
        let Turn {
            dice,
            position,
            seat: mover,
            moves,
            ..
        } = turn;
        let explore =
            exploration > 0.0 && (dice.below(1 << 20) as f64) < exploration * f64::from(1u32 << 20);
        if explore {
            return Ok(moves[dice.below(moves.len())]);
        }
        // (value for the mover, move, value for the side to move after it)
        let mut best = (f64::NEG_INFINITY, moves[0], 0.0);
        let mut after_each = Vec::new();
        for &mv in moves {
            let after = game.apply(position, mv).position;
            let own = value(net, game, &after, exact);
            let v = if game.turn(&after) == mover {
                own
            } else {
                1.0 - own
            };
            if v > best.0 {
                best = (v, mv, own);
            }
            if choices.is_some() {
                after_each.push((after, own));
            }
        }
        if let Some((teacher, margin)) = choices {
            chosen_among.extend(choice_positions(game, mover, &after_each, teacher, margin));
        }
        reached.set(Some(best.2));
        Ok(best.1)
    };
    let played = play_turns_until(
        game,
        game.start(),
        &mut dice,
        before_roll,
        decide,
        |_, _| {},
    );
    positions.push(played.position);
    values.push(value(net, game, &played.position, exact));
    Played {
        positions,
        values,
        choices: chosen_among,
    }
}

/// Why a self-play game stopped before the end: it reached a position
/// whose value is known exactly.
struct KnownExactly;

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
/// teacher's values where `known` has a teacher (then, with a choice margin,
/// each game's positions are followed by those of its choices that
/// mattered). Finished positions are
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
            let choice_sampling = known.teacher.zip(known.choice_margin);
            let Played {
                mut positions,
                mut values,
                choices,
            } = play(
                net,
                game,
                exploration,
                seed_of(i),
                (known.exact, known.stop_at_exact),
                choice_sampling,
            );
            let mut targets: Vec<f64> = match known.teacher {
                Some(label) => positions.iter().map(label).collect(),
                None => lambda_returns(game, &positions, &values, lambda),
            };
            // A position known exactly is worth its exact value, whatever
            // came after it in this game.
            if let Some(exact) = known.exact {
                for (target, position) in targets.iter_mut().zip(&positions) {
                    if let Some(value) = exact(position) {
                        *target = value;
                    }
                }
            }
            for choice in choices {
                positions.push(choice.position);
                values.push(choice.predicted);
                targets.push(choice.target);
            }
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

    const MAX_ROLLS: usize = sawah_engine::MAX_ROLLS as usize;

    /// The loop self-play had before it played through the engine's, as
    /// the reference the game loop must reproduce to the bit.
    #[allow(clippy::too_many_lines)]
    fn reference_play<G: Encode>(
        net: &NeuralNet,
        game: &G,
        exploration: f64,
        seed: u64,
        exact: Option<Exact<'_, G::Position>>,
        choices: Option<(Teacher<'_, G::Position>, f64)>,
    ) -> Played<G::Position> {
        let mut dice = DiceSource::from_seed(seed);
        let mut position = game.start();
        let mut positions = Vec::with_capacity(256);
        let mut values = Vec::with_capacity(256);
        let mut chosen_among = Vec::new();
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
            let explore = exploration > 0.0
                && (dice.below(1 << 20) as f64) < exploration * f64::from(1u32 << 20);
            let chosen = if explore {
                moves[dice.below(moves.len())]
            } else {
                let mover = game.turn(&position);
                // (value for the mover, move, value for the side to move after it)
                let mut best = (f64::NEG_INFINITY, moves[0], 0.0);
                let mut after_each = Vec::new();
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
                    if choices.is_some() {
                        after_each.push((after, own));
                    }
                }
                if let Some((teacher, margin)) = choices {
                    chosen_among.extend(choice_positions(
                        game,
                        mover,
                        &after_each,
                        teacher,
                        margin,
                    ));
                }
                reached = Some(best.2);
                best.1
            };
            position = game.apply(&position, chosen).position;
        }
        positions.push(position);
        values.push(value(net, game, &position, exact));
        Played {
            positions,
            values,
            choices: chosen_among,
        }
    }

    #[test]
    fn self_play_through_the_engine_loop_plays_the_games_it_played_before() {
        let rules = race::preset("ur").unwrap();
        let net = NeuralNet::with_random_weights(&rules, &[16], 5).unwrap();
        let hash = |p: &race::Position| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            p.hash(&mut h);
            h.finish() % 1000
        };
        let teacher = |p: &race::Position| hash(p) as f64 / 1000.0;
        // Known exactly for about one position in fifty.
        let exact = |p: &race::Position| (hash(p) < 20).then_some(0.75);
        for seed in 0..12 {
            for (exploration, exact, choices) in [
                (0.0, None, None),
                (0.1, None, None),
                (0.1, Some(&exact as Exact<'_, _>), None),
                (0.05, None, Some((&teacher as Teacher<'_, _>, 0.01))),
            ] {
                let new = play(&net, &rules, exploration, seed, (exact, true), choices);
                let old = reference_play(&net, &rules, exploration, seed, exact, choices);
                assert!(new.positions.len() > 1);
                assert_eq!(new.positions, old.positions, "seed {seed}");
                assert_eq!(new.values, old.values, "seed {seed}");
                assert_eq!(new.choices, old.choices, "seed {seed}");
            }
        }
    }

    #[test]
    fn choices_are_sampled_only_where_the_teacher_sees_them_matter() {
        let rules = race::preset("ur").unwrap();
        let start = rules.start();
        let mover = rules.turn(&start);
        // After a first roll of 2 every piece is still on the board, so any
        // two moves reach the same position: find a later roll with a
        // real choice by playing the first legal move a few times.
        let mut position = start;
        let mut reached = Vec::new();
        for _ in 0..40 {
            let moves = rules.legal_moves(&position, 2);
            reached = moves
                .iter()
                .map(|&mv| (rules.apply(&position, mv).position, 0.25))
                .collect::<Vec<_>>();
            let distinct = reached
                .iter()
                .map(|(p, _)| p)
                .collect::<std::collections::HashSet<_>>();
            if distinct.len() >= 2 && rules.turn(&position) == mover {
                break;
            }
            position = match moves.first() {
                Some(&mv) => rules.apply(&position, mv).position,
                None => rules.pass(&position),
            };
            reached.clear();
        }
        assert!(reached.len() >= 2, "no position with a choice was found");
        let mover = rules.turn(&position);
        // A teacher that tells the reached positions apart by 0.01 each.
        let order: Vec<_> = reached.iter().map(|(p, _)| *p).collect();
        let teacher =
            |p: &race::Position| 0.5 + 0.01 * order.iter().position(|q| q == p).unwrap_or(0) as f64;
        let distinct = order.iter().collect::<std::collections::HashSet<_>>().len();
        let all = choice_positions(&rules, mover, &reached, &teacher, 0.0);
        assert_eq!(all.len(), distinct, "one sample per distinct position");
        assert!(
            all.iter().all(|c| c.predicted == 0.25),
            "the network's values are kept"
        );
        assert!(
            all.iter().all(|c| c.target == teacher(&c.position)),
            "the teacher's values are the targets"
        );
        let spread = 0.01 * (reached.len() - 1) as f64;
        assert_eq!(
            choice_positions(&rules, mover, &reached, &teacher, spread - 1e-9).len(),
            distinct
        );
        assert!(choice_positions(&rules, mover, &reached, &teacher, spread + 1e-9).is_empty());
        // One move alone is never a choice.
        assert!(choice_positions(&rules, mover, &reached[..1], &teacher, 0.0).is_empty());
    }

    #[test]
    fn with_a_margin_the_choices_follow_each_games_positions_with_exact_targets() {
        let rules = race::preset("ur").unwrap();
        let net = NeuralNet::with_random_weights(&rules, &[16], 5).unwrap();
        // A teacher that values positions by a hash of them.
        let teacher = |p: &race::Position| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            p.hash(&mut h);
            (h.finish() % 1000) as f64 / 1000.0
        };
        let known = |choice_margin| Known {
            teacher: Some(&teacher),
            exact: None,
            stop_at_exact: false,
            choice_margin,
        };
        let played = generate(&net, &rules, 3, 0.0, 0.7, |i| i, known(None));
        let more = generate(&net, &rules, 3, 0.0, 0.7, |i| i, known(Some(0.0)));
        let fewer = generate(&net, &rules, 3, 0.0, 0.7, |i| i, known(Some(0.5)));
        assert!(
            more.len() > 2 * played.len(),
            "{} vs {}",
            more.len(),
            played.len()
        );
        assert!(played.len() < fewer.len() && fewer.len() < more.len());
        // Every sample's target is the teacher's value of its position.
        for s in &more {
            assert!(
                more.iter()
                    .all(|t| t.active != s.active || t.target == s.target),
                "one position, one target"
            );
            assert!((0.0..1.0).contains(&s.target));
        }
    }

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
