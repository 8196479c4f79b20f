//! Agents: something that picks a move, and the agents built on search.

use crate::evaluator::{Evaluator, best_index, position_hash};
use crate::search::{Search, SearchOptions, Stop};
use sawah_engine::{DiceSource, Game};

/// A decision: the chosen move and, if the agent has them, every legal
/// move's value (the mover's win probability as the agent sees it).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice<M> {
    /// The move to play.
    pub chosen: M,
    /// One value per legal move, in the order of the legal moves.
    pub values: Option<Vec<f64>>,
}

/// Why an agent gave no move, as a referee records a forfeit: a typed
/// list, as chess tournament managers keep one, so tables can count
/// forfeits by cause.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// No answer within the time for the move.
    Time,
    /// The agent stopped: its process exited or closed its pipes, the
    /// connection failed, or (an agent of ours) it panicked.
    Crash,
    /// It could not be started, or did not answer `hello`.
    Start,
    /// An answer that is not the protocol's shape: not JSON, another
    /// request's id, no `"move"`, a move that is not `{"from":…,"to":…}`
    /// with numbers, an error answer.
    Malformed,
    /// A well-formed move that is not among the legal moves.
    Illegal,
    /// The bot had been withdrawn from the tournament after failing
    /// too often; its remaining games are forfeited.
    Withdrawn,
}

impl FailureKind {
    /// Every kind, in the order tables list them.
    pub const ALL: [FailureKind; 6] = [
        FailureKind::Time,
        FailureKind::Crash,
        FailureKind::Start,
        FailureKind::Malformed,
        FailureKind::Illegal,
        FailureKind::Withdrawn,
    ];

    /// The kind's name in results files and tables (`time`, `crash`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Time => "time",
            FailureKind::Crash => "crash",
            FailureKind::Start => "start",
            FailureKind::Malformed => "malformed",
            FailureKind::Illegal => "illegal",
            FailureKind::Withdrawn => "withdrawn",
        }
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An agent's failure to move: its kind and what happened, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The cause.
    pub kind: FailureKind,
    /// What went wrong, for the results file and the terminal.
    pub message: String,
}

impl Failure {
    /// A failure of `kind` saying `message`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Something that picks a move.
pub trait Agent<G: Game> {
    /// The agent's spec string (for logs and tables).
    fn name(&self) -> String;

    /// Picks one of `moves` (non-empty) for the side to move after `roll`,
    /// with the values behind the choice.
    fn decide(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
    ) -> Choice<G::Move>;

    /// Picks one of `moves` (non-empty).
    fn choose(&mut self, game: &G, position: &G::Position, roll: u8, moves: &[G::Move]) -> G::Move {
        self.decide(game, position, roll, moves).chosen
    }

    /// [`Agent::decide`] as a referee asks it: `turn` is the game's roll
    /// count so far (from 1), and an agent that can fail without a bug
    /// (an outside bot that hangs, crashes or answers garbage) says why
    /// (a typed [`Failure`]) instead of panicking. The referee scores an error as a forfeit. Agents
    /// of this crate never fail, and their answer is [`Agent::decide`]'s.
    fn try_decide(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
        turn: u64,
    ) -> Result<Choice<G::Move>, Failure> {
        let _ = turn;
        Ok(self.decide(game, position, roll, moves))
    }

    /// The win probability for the side to move before its roll, if the agent has a view.
    fn evaluate(&mut self, game: &G, position: &G::Position) -> Option<f64>;

    /// Lets a searching agent be stopped early (a server's time budget):
    /// it then answers from the deepest search it finished, never less
    /// than one roll deep. Agents that do not search ignore it. Until the
    /// stop fires, answers are exactly those without one.
    fn set_stop(&mut self, stop: Option<Stop>) {
        let _ = stop;
    }

    /// The plies the last decision or evaluation finished, for an agent
    /// that searches (less than its depth when a stop cut it short);
    /// `None` for agents that do not search.
    fn finished_depth(&self) -> Option<u8> {
        None
    }
}

/// Plays a uniformly random legal move; deterministic for a given seed.
#[derive(Clone, Debug)]
pub struct RandomAgent {
    source: DiceSource,
}

impl RandomAgent {
    /// A random agent whose choices follow from `seed`.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            source: DiceSource::from_seed(seed),
        }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn decide(
        &mut self,
        _game: &G,
        _position: &G::Position,
        _roll: u8,
        moves: &[G::Move],
    ) -> Choice<G::Move> {
        Choice {
            chosen: moves[self.source.below(moves.len())],
            values: None,
        }
    }

    fn evaluate(&mut self, _game: &G, _position: &G::Position) -> Option<f64> {
        None
    }
}

/// A softmax choice over values at `temperature`, driven by a uniform number
/// in [0, 1): weaker play that still prefers good moves, and whose mistakes
/// are mostly small (a move's chance falls off with its loss).
pub fn softmax_index(values: &[f64], temperature: f64, uniform: f64) -> usize {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = values
        .iter()
        .map(|v| ((v - max) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut target = uniform * total;
    for (i, w) in weights.iter().enumerate() {
        if target < *w {
            return i;
        }
        target -= w;
    }
    values.len() - 1
}

/// Expectiminimax over an evaluator, `depth` plies deep (depth 0 is greedy
/// over the positions after each move; each ply adds one more roll of look-ahead),
/// with iterative deepening under a node budget.
#[derive(Clone, Debug)]
pub struct SearchAgent<E> {
    name: String,
    evaluator: E,
    depth: u8,
    node_budget: Option<u64>,
    temperature: f64,
    seed: u64,
    options: SearchOptions,
    focus: Option<usize>,
    stop: Option<Stop>,
    /// Nodes searched by the last decision.
    pub last_nodes: u64,
    /// Plies the last decision finished (its answer's depth; less than the
    /// agent's depth when a node budget or a stop ended it early).
    pub last_depth: u8,
}

impl<E> SearchAgent<E> {
    /// A search agent. `node_budget` stops iterative deepening once a
    /// completed depth has used that many nodes; `temperature` > 0 picks
    /// moves by softmax over their values instead of the best.
    pub fn new(
        name: String,
        evaluator: E,
        depth: u8,
        node_budget: Option<u64>,
        temperature: f64,
        seed: u64,
        options: SearchOptions,
    ) -> Self {
        SearchAgent {
            name,
            evaluator,
            depth,
            node_budget,
            temperature,
            seed,
            options,
            focus: None,
            stop: None,
            last_nodes: 0,
            last_depth: 0,
        }
    }

    /// The deepest ply searches only the `moves` moves the ply before it
    /// ranks best, and the choice is among them (`None`: every move). A
    /// deeper search where it matters: the near ties between the best few
    /// moves are what a value network gets wrong, and searching only them
    /// one ply deeper costs a fraction of searching every move.
    pub fn with_focus(mut self, moves: Option<usize>) -> Self {
        self.focus = moves.filter(|&k| k > 0);
        self
    }

    /// The focus that applies to a choice among `count` moves: none when
    /// it would keep every move or no ply comes before the deepest.
    fn focus_among(&self, count: usize) -> Option<usize> {
        self.focus.filter(|&k| k < count && self.depth > 0)
    }
}

/// Iterative deepening, the one driver of [`SearchAgent`]'s
/// [`Agent::decide`] and [`Agent::choose`]: searches ply 0, 1, … up to
/// `depth`, each by `search_ply(search, state, ply)`, and keeps a ply's
/// result (`keep(state, result)`) only if it finished. The first ply, one
/// roll deep, always runs to the end (the answer of last resort); the later
/// ones stop on `stop`, and none starts once `node_budget` nodes are spent.
/// Returns the deepest ply that finished.
fn deepen<G: Game, E: Evaluator<G>, S, R>(
    (depth, stop, node_budget): (u8, Option<&Stop>, Option<u64>),
    search: &mut Search<'_, G, E>,
    state: &mut S,
    mut search_ply: impl FnMut(&mut Search<'_, G, E>, &S, u8) -> R,
    mut keep: impl FnMut(&mut S, R),
) -> u8 {
    let mut finished = 0;
    for ply in 0..=depth {
        search.set_stop(if ply == 0 { None } else { stop.cloned() });
        let result = search_ply(search, state, ply);
        if search.stopped() {
            break;
        }
        keep(state, result);
        finished = ply;
        if node_budget.is_some_and(|budget| search.nodes >= budget) {
            break;
        }
    }
    finished
}

/// The moves at `indices`.
fn moves_at<M: Copy>(moves: &[M], indices: &[usize]) -> Vec<M> {
    indices.iter().map(|&i| moves[i]).collect()
}

/// The indices of the `k` best values (ties to the earlier index), in
/// increasing order.
pub fn focus_on_best(values: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    order.truncate(k);
    order.sort_unstable();
    order
}

impl<E> SearchAgent<E> {
    /// A uniform number in [0, 1) fixed by the position, roll and seed.
    fn uniform<P: std::hash::Hash>(&self, position: &P, roll: u8) -> f64 {
        let hash = position_hash(&(position, roll), self.seed);
        (hash >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for SearchAgent<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
    ) -> Choice<G::Move> {
        let mut search = Search::new(game, &self.evaluator, self.options);
        let focus = self.focus_among(moves.len());
        let depth = self.depth;
        // Every move's value, and the moves the last finished ply searched:
        // the choice is theirs.
        let mut state = (Vec::new(), (0..moves.len()).collect::<Vec<usize>>());
        self.last_depth = deepen(
            (depth, self.stop.as_ref(), self.node_budget),
            &mut search,
            &mut state,
            |search, (values, _), ply| {
                // The deepest ply ranks by the ply before's exact values.
                let these = match focus {
                    Some(k) if ply == depth => focus_on_best(values, k),
                    _ => (0..moves.len()).collect(),
                };
                let deeper = search.move_values(position, &moves_at(moves, &these), ply + 1);
                (these, deeper)
            },
            |(values, searched), (these, deeper)| {
                // Moves left out keep the value of the ply before.
                values.resize(moves.len(), f64::NEG_INFINITY);
                for (&i, value) in these.iter().zip(deeper) {
                    values[i] = value;
                }
                *searched = these;
            },
        );
        self.last_nodes = search.nodes;
        let (values, searched) = state;
        let candidates: Vec<f64> = searched.iter().map(|&i| values[i]).collect();
        let index = searched[if self.temperature > 0.0 {
            softmax_index(&candidates, self.temperature, self.uniform(position, roll))
        } else {
            best_index(&candidates)
        }];
        Choice {
            chosen: moves[index],
            values: Some(values),
        }
    }

    /// The move only (no exact value for every move), with pruning across
    /// the root moves too; the same move [`Agent::decide`] picks.
    fn choose(&mut self, game: &G, position: &G::Position, roll: u8, moves: &[G::Move]) -> G::Move {
        if self.temperature > 0.0 || moves.len() == 1 {
            return if moves.len() == 1 {
                moves[0]
            } else {
                self.decide(game, position, roll, moves).chosen
            };
        }
        let mut search = Search::new(game, &self.evaluator, self.options);
        // With a focus, the ply before the deepest needs every move's exact
        // value to rank them, not only the best move.
        let focus = self.focus_among(moves.len());
        let depth = self.depth;
        // The chosen move's index, and every move's value where a focus
        // ranks them.
        let mut state = (0usize, Vec::new());
        self.last_depth = deepen(
            (depth, self.stop.as_ref(), self.node_budget),
            &mut search,
            &mut state,
            |search, (_, ranking), ply| match focus {
                Some(_) if ply + 1 == depth => {
                    let values = search.move_values(position, moves, ply + 1);
                    (best_index(&values), Some(values))
                }
                Some(k) if ply == depth => {
                    let these = focus_on_best(ranking, k);
                    let best = search
                        .best_move(position, &moves_at(moves, &these), ply + 1)
                        .0;
                    (these[best], None)
                }
                _ => (search.best_move(position, moves, ply + 1).0, None),
            },
            |(index, ranking), (best, values)| {
                *index = best;
                if let Some(values) = values {
                    *ranking = values;
                }
            },
        );
        self.last_nodes = search.nodes;
        let index = state.0;
        moves[index]
    }

    fn evaluate(&mut self, game: &G, position: &G::Position) -> Option<f64> {
        let mut search = Search::new(game, &self.evaluator, self.options);
        search.set_stop(self.stop.clone());
        // Before its roll: this position's roll, then `depth` more.
        let mut value = search.position_value(position, self.depth + 1);
        self.last_depth = self.depth;
        if search.stopped() {
            // Stopped: the one-roll value instead, which always finishes.
            let mut shallow = Search::new(game, &self.evaluator, self.options);
            value = shallow.position_value(position, 1);
            self.last_depth = 0;
            search.nodes += shallow.nodes;
        }
        self.last_nodes = search.nodes;
        Some(value)
    }

    fn set_stop(&mut self, stop: Option<Stop>) {
        self.stop = stop;
    }

    fn finished_depth(&self) -> Option<u8> {
        Some(self.last_depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_index_prefers_the_first_of_near_ties() {
        assert_eq!(best_index(&[0.2, 0.5, 0.5 + 1e-14, 0.4]), 1);
        assert_eq!(best_index(&[0.2, 0.5, 0.6]), 2);
    }

    #[test]
    fn softmax_prefers_better_moves_and_covers_all() {
        let values = [0.5, 0.45, 0.2];
        let mut counts = [0; 3];
        for i in 0..10_000 {
            counts[softmax_index(&values, 0.05, (i as f64 + 0.5) / 10_000.0)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
        assert!(counts[2] > 0);
        assert_eq!(softmax_index(&values, 1e-9, 0.999), 0);
    }
}
