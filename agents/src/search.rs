//! Expectiminimax over chance and move nodes, with Star1/Star2 pruning
//! (Ballard 1983; Hauk, Buro & Schaeffer 2004), move ordering and a
//! transposition table, plus iterative deepening under a node budget.
//!
//! Values are win probabilities for the side to move, in [0, 1]. A *chance
//! node* is a position before its roll; a *move node* is a position and a
//! roll, where the side to move picks the best move. A move that gives an
//! extra roll leads to a chance node of the same player (value taken as is);
//! any other move, and a pass, to the opponent's (value `1 - v`). Here depth
//! counts every roll searched, the one already made at the root included:
//! `rolls = 1` evaluates the position after each move with the evaluator.
//! Agents speak in plies, as GNU Backgammon does: ply = rolls − 1.
//!
//! Root values are exact (every root move is searched with the full window),
//! so with pruning on, the chosen move and every reported value are those of
//! plain expectiminimax at the same depth.
//!
//! With pruning on and an evaluator worth it (a network:
//! [`Evaluator::worth_remembering`]), a second table of the same kind keeps
//! leaf evaluations. Iterative deepening asks again for most of them: the
//! leaves of one ply are the positions the next ply orders its moves by,
//! and moves played in another order meet at the same leaves. A remembered
//! value is the evaluation itself and the transposition table is left as it
//! was, so every value, bound, choice and node count is what the search
//! without it gives.

use crate::evaluator::{Evaluator, position_hash, terminal_value};
use sawah_engine::Game;

/// The smallest and largest value a position can have.
const LOWEST: f64 = 0.0;
const HIGHEST: f64 = 1.0;
/// The width of the windows that only test whether a move beats a value.
const NULL_WINDOW: f64 = 1e-9;

/// How a search is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Use Star1/Star2 pruning, move ordering and the transposition table;
    /// `false` gives plain expectiminimax (the reference).
    pub pruning: bool,
    /// log2 of the transposition table's entry count.
    pub table_bits: u8,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            pruning: true,
            table_bits: 14,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    depth: u8,
    /// The search that stored it (a table is reused by later searches).
    generation: u32,
    lower: f64,
    upper: f64,
}

/// Chance-node values by position and depth: bounds `[lower, upper]`.
///
/// Filling a table of 2^14 entries takes longer than a one-ply search, so
/// a finished search leaves its table to the next one on the same thread:
/// each search has its own generation, and entries of another generation
/// are never read, so a reused table answers exactly as a fresh one.
struct TranspositionTable {
    entries: Vec<Option<Entry>>,
    mask: u64,
    generation: u32,
}

/// Most tables kept per thread for later searches.
const SPARE_TABLES_KEPT: usize = 4;

thread_local! {
    static SPARE_TABLES: std::cell::RefCell<Vec<TranspositionTable>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl TranspositionTable {
    /// A table of 2^`bits` entries with none of them readable: a spare one
    /// of this thread in a new generation, or a new one.
    fn take(bits: u8) -> TranspositionTable {
        let size = 1usize << bits.min(30);
        let spare = SPARE_TABLES.with(|spares| {
            let mut spares = spares.borrow_mut();
            let found = spares.iter().position(|t| t.entries.len() == size)?;
            Some(spares.swap_remove(found))
        });
        match spare {
            Some(mut table) => {
                table.generation = table.generation.wrapping_add(1);
                if table.generation == 0 {
                    table.entries.fill(None);
                }
                table
            }
            None => TranspositionTable {
                entries: vec![None; size],
                mask: size as u64 - 1,
                generation: 0,
            },
        }
    }

    /// Leaves the table to a later search on this thread.
    fn give_back(self) {
        SPARE_TABLES.with(|spares| {
            let mut spares = spares.borrow_mut();
            if spares.len() < SPARE_TABLES_KEPT {
                spares.push(self);
            }
        });
    }

    fn get(&self, key: u64, depth: u8) -> Option<Entry> {
        self.entries[(key & self.mask) as usize]
            .filter(|e| e.key == key && e.depth == depth && e.generation == self.generation)
    }

    fn put(&mut self, entry: Entry) {
        let entry = Entry {
            generation: self.generation,
            ..entry
        };
        self.entries[(entry.key & self.mask) as usize] = Some(entry);
    }
}

/// What stops searches early: a node budget, a server's clock, a client
/// that went away. One stop may watch many searches (every search of a
/// request, a whole review's included): it counts the nodes they search
/// under it, in order, and is asked now and then with that running total.
/// Once it has said stop it stays stopped, and says why. The search engine
/// itself keeps no clock, so it runs the same everywhere, WebAssembly
/// included; a stop that only counts nodes fires at the same node on every
/// run, so what it cuts is deterministic.
#[derive(Clone)]
pub struct Stop(std::sync::Arc<StopState>);

struct StopState {
    check: Box<dyn Fn(u64) -> Option<String> + Send + Sync>,
    nodes: std::sync::atomic::AtomicU64,
    reason: std::sync::OnceLock<String>,
}

impl Stop {
    /// A stop that asks `check(nodes searched under it so far)`; an answer
    /// says why the searches stop ("the node budget of 5000000 nodes").
    pub fn new(check: impl Fn(u64) -> Option<String> + Send + Sync + 'static) -> Stop {
        Stop(std::sync::Arc::new(StopState {
            check: Box::new(check),
            nodes: std::sync::atomic::AtomicU64::new(0),
            reason: std::sync::OnceLock::new(),
        }))
    }

    /// A stop that fires once its searches have searched `nodes` nodes.
    pub fn after_nodes(nodes: u64) -> Stop {
        Stop::new(move |searched| {
            (searched >= nodes).then(|| format!("the node budget of {nodes} nodes"))
        })
    }

    /// Counts `nodes` more searched nodes and asks whether to stop.
    pub fn spend(&self, nodes: u64) -> bool {
        let total = self.count(nodes);
        if self.fired() {
            return true;
        }
        match (self.0.check)(total) {
            Some(reason) => {
                let _ = self.0.reason.set(reason);
                true
            }
            None => false,
        }
    }

    /// Counts `nodes` more searched nodes without asking; the running total.
    fn count(&self, nodes: u64) -> u64 {
        use std::sync::atomic::Ordering::Relaxed;
        self.0.nodes.fetch_add(nodes, Relaxed).saturating_add(nodes)
    }

    /// Whether the stop has fired.
    pub fn fired(&self) -> bool {
        self.0.reason.get().is_some()
    }

    /// Why it fired, if it has.
    pub fn reason(&self) -> Option<&str> {
        self.0.reason.get().map(String::as_str)
    }

    /// Nodes searched under this stop so far.
    pub fn nodes(&self) -> u64 {
        self.0.nodes.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl std::fmt::Debug for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stop")
            .field("nodes", &self.nodes())
            .field("reason", &self.reason())
            .finish()
    }
}

/// How many nodes pass between two questions to a [`Stop`].
const STOP_INTERVAL: u64 = 256;

/// One search: a game, an evaluator, its table and its node count.
pub struct Search<'a, G: Game, E> {
    game: &'a G,
    evaluator: &'a E,
    options: SearchOptions,
    table: Option<TranspositionTable>,
    stop: Option<Stop>,
    stopped: bool,
    next_check: u64,
    /// The node count when the stop was last told of this search's nodes.
    reported: u64,
    /// Leaf evaluations asked for so far (when the evaluator is worth it).
    leaves: Option<TranspositionTable>,
    /// Chance and move nodes visited (evaluator calls at the leaves included
    /// as chance nodes of depth 0).
    pub nodes: u64,
}

impl<G: Game, E> Search<'_, G, E> {
    /// Tells the stop of the nodes searched since it was last told, so its
    /// total counts every node searched under it.
    fn report(&mut self) {
        if let Some(stop) = &self.stop {
            stop.count(self.nodes - self.reported);
        }
        self.reported = self.nodes;
    }
}

impl<G: Game, E> Drop for Search<'_, G, E> {
    fn drop(&mut self) {
        self.report();
        for table in [self.table.take(), self.leaves.take()]
            .into_iter()
            .flatten()
        {
            table.give_back();
        }
    }
}

impl<'a, G: Game, E: Evaluator<G>> Search<'a, G, E> {
    /// A search of `game` with `evaluator` at the leaves.
    pub fn new(game: &'a G, evaluator: &'a E, options: SearchOptions) -> Self {
        let table = options
            .pruning
            .then(|| TranspositionTable::take(options.table_bits));
        Search {
            game,
            evaluator,
            options,
            table,
            stop: None,
            stopped: false,
            next_check: 0,
            reported: 0,
            leaves: (options.pruning && evaluator.worth_remembering())
                .then(|| TranspositionTable::take(options.table_bits)),
            nodes: 0,
        }
    }

    /// The evaluator's value of an unfinished `position`, from the table
    /// when this search asked for it before.
    fn evaluate(&mut self, position: &G::Position) -> f64 {
        let Some(leaves) = self.leaves.as_mut() else {
            return self.evaluator.evaluate(self.game, position);
        };
        let key = position_hash(position, 0);
        if let Some(entry) = leaves.get(key, 0) {
            return entry.lower;
        }
        let value = self.evaluator.evaluate(self.game, position);
        leaves.put(Entry {
            key,
            depth: 0,
            generation: 0,
            lower: value,
            upper: value,
        });
        value
    }

    /// Asks `stop` from now on (`None`: never stop). Once it has said stop,
    /// every result of this search is meaningless: callers check
    /// [`Search::stopped`] and fall back to what they had.
    pub fn set_stop(&mut self, stop: Option<Stop>) {
        self.report();
        self.stop = stop;
        self.next_check = self.nodes;
        self.reported = self.nodes;
    }

    /// Whether a [`Stop`] stopped this search.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The value of each legal move for the side to move with `roll`, searched
    /// `depth` rolls deep (depth ≥ 1, the root roll included), in the order of `moves`.
    pub fn move_values(
        &mut self,
        position: &G::Position,
        moves: &[G::Move],
        depth: u8,
    ) -> Vec<f64> {
        let depth = depth.max(1);
        moves
            .iter()
            .map(|&mv| self.move_value(position, mv, depth, LOWEST, HIGHEST))
            .collect()
    }

    /// The best move for the side to move with `roll`, searched `depth` rolls
    /// deep, and a value per move: exact for the chosen move and every move
    /// within [`TIE`](crate::evaluator::TIE) of it, an upper bound (at most the
    /// best value minus the tie margin) for the rest. The choice is that of
    /// [`best_index`](crate::evaluator::best_index) over exact values: the first
    /// move, in the order of `moves`, within the tie margin of the best.
    pub fn best_move(
        &mut self,
        position: &G::Position,
        moves: &[G::Move],
        depth: u8,
    ) -> (usize, Vec<f64>) {
        let depth = depth.max(1);
        let mut values = vec![LOWEST; moves.len()];
        let mut best = f64::NEG_INFINITY;
        for (index, mv) in self.ordered_indices(position, moves, depth) {
            let value = if best == f64::NEG_INFINITY {
                self.move_value(position, mv, depth, LOWEST, HIGHEST)
            } else {
                // A null window first: most moves only need to be shown worse.
                let alpha = (best - crate::evaluator::TIE).max(LOWEST);
                let test = self.move_value(position, mv, depth, alpha, alpha + NULL_WINDOW);
                if test >= alpha + NULL_WINDOW {
                    self.move_value(position, mv, depth, alpha, HIGHEST)
                } else {
                    test
                }
            };
            values[index] = value;
            best = best.max(value);
        }
        (crate::evaluator::best_index(&values), values)
    }

    /// The value of a position for the side to move before its roll.
    pub fn position_value(&mut self, position: &G::Position, depth: u8) -> f64 {
        self.chance(position, depth, LOWEST, HIGHEST)
    }

    /// The value of playing `mv`, for the mover, with window (alpha, beta).
    #[inline]
    fn move_value(
        &mut self,
        position: &G::Position,
        mv: G::Move,
        depth: u8,
        alpha: f64,
        beta: f64,
    ) -> f64 {
        let step = self.game.apply(position, mv);
        if step.extra_roll {
            self.chance(&step.position, depth - 1, alpha, beta)
        } else {
            1.0 - self.chance(&step.position, depth - 1, 1.0 - beta, 1.0 - alpha)
        }
    }

    /// Whether the search has been told to stop (asking the [`Stop`] at the
    /// first node after it was set, then every [`STOP_INTERVAL`] nodes).
    fn should_stop(&mut self) -> bool {
        if !self.stopped
            && self.nodes >= self.next_check
            && let Some(stop) = &self.stop
        {
            self.next_check = self.nodes + STOP_INTERVAL;
            self.stopped = stop.spend(self.nodes - self.reported);
            self.reported = self.nodes;
        }
        self.stopped
    }

    /// A chance node: the position before the roll of its side to move.
    fn chance(&mut self, position: &G::Position, depth: u8, alpha: f64, beta: f64) -> f64 {
        self.nodes += 1;
        if self.should_stop() {
            // Unwinds quickly: every node above returns at once too.
            return 0.5;
        }
        if let Some(value) = terminal_value(self.game, position) {
            return value;
        }
        if depth == 0 {
            return self.evaluate(position);
        }
        if !self.options.pruning {
            let outcomes: Vec<(u8, f64)> = self.game.dice().outcomes().collect();
            return outcomes
                .iter()
                .map(|&(roll, p)| p * self.after_roll(position, roll, depth, LOWEST, HIGHEST))
                .sum();
        }
        let key = position_hash(position, 0);
        if let Some(entry) = self.table.as_ref().and_then(|t| t.get(key, depth)) {
            if entry.lower == entry.upper || entry.lower >= beta {
                return entry.lower;
            }
            if entry.upper <= alpha {
                return entry.upper;
            }
        }
        let value = self.star2(position, depth, alpha, beta);
        if self.stopped {
            return value;
        }
        let (lower, upper) = if value <= alpha {
            (LOWEST, value)
        } else if value >= beta {
            (value, HIGHEST)
        } else {
            (value, value)
        };
        if let Some(table) = self.table.as_mut() {
            table.put(Entry {
                key,
                depth,
                generation: 0,
                lower,
                upper,
            });
        }
        value
    }

    /// Star2 at a chance node: probe every roll with one move for lower
    /// bounds (a cut if they already reach beta), then Star1 over the rolls
    /// with those bounds. Fail-soft: a result at or below alpha is an upper
    /// bound, at or above beta a lower bound, in between exact.
    fn star2(&mut self, position: &G::Position, depth: u8, alpha: f64, beta: f64) -> f64 {
        let outcomes: Vec<(u8, f64)> = self.game.dice().outcomes().collect();
        let n = outcomes.len();
        let mut lower = vec![LOWEST; n];
        let mut upper = vec![HIGHEST; n];
        let weighted =
            |bounds: &[f64]| -> f64 { outcomes.iter().zip(bounds).map(|(&(_, p), b)| p * b).sum() };
        // Likely rolls first: they move the bounds most. (Sums stay in roll
        // order, so exact values are bitwise those of plain search.)
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| outcomes[b].1.total_cmp(&outcomes[a].1).then(a.cmp(&b)));
        // Probing: the first move of each roll gives a lower bound for it,
        // and its exact value is kept so Star1 does not search it again.
        let mut probed: Vec<Option<(G::Move, f64)>> = vec![None; n];
        for &i in &order {
            let (roll, p) = outcomes[i];
            let beta_i = (beta - (weighted(&lower) - p * lower[i])) / p;
            if let Some((mv, value)) = self.probe(position, roll, depth, beta_i.min(HIGHEST)) {
                lower[i] = lower[i].max(value);
                if weighted(&lower) >= beta {
                    return weighted(&lower);
                }
                probed[i] = Some((mv, value));
            }
        }
        // Star1: each roll in turn, with the window that would decide the node.
        for &i in &order {
            let (roll, p) = outcomes[i];
            let alpha_i = ((alpha - (weighted(&upper) - p * upper[i])) / p).max(LOWEST);
            let beta_i = ((beta - (weighted(&lower) - p * lower[i])) / p).min(HIGHEST);
            let mut value = self.after_roll_from(position, roll, depth, alpha_i, beta_i, probed[i]);
            if value <= alpha_i && alpha_i > LOWEST {
                upper[i] = value;
                if weighted(&upper) <= alpha {
                    return weighted(&upper);
                }
                // Rounding kept the node undecided: get the exact value.
                value = self.after_roll(position, roll, depth, LOWEST, HIGHEST);
            } else if value >= beta_i && beta_i < HIGHEST {
                lower[i] = value;
                if weighted(&lower) >= beta {
                    return weighted(&lower);
                }
                value = self.after_roll(position, roll, depth, LOWEST, HIGHEST);
            }
            lower[i] = value;
            upper[i] = value;
        }
        weighted(&lower)
    }

    /// The first move of the move node (position, roll) in search order and
    /// its value, searched with window (0, beta_i): a lower bound for the
    /// node, exact when below beta_i. `None` for a pass.
    fn probe(
        &mut self,
        position: &G::Position,
        roll: u8,
        depth: u8,
        beta_i: f64,
    ) -> Option<(G::Move, f64)> {
        if beta_i <= LOWEST {
            return None;
        }
        let moves = self.game.legal_moves(position, roll);
        if moves.is_empty() {
            return None;
        }
        let first = self.ordered(position, &moves, depth)[0];
        let value = self.move_value(position, first, depth, LOWEST, beta_i);
        Some((first, value))
    }

    /// The moves in search order: best-looking first by the evaluator
    /// (only where the children are searched deeper than one roll).
    fn ordered(&mut self, position: &G::Position, moves: &[G::Move], depth: u8) -> Vec<G::Move> {
        self.ordered_indices(position, moves, depth)
            .into_iter()
            .map(|(_, mv)| mv)
            .collect()
    }

    /// [`Search::ordered`] with each move's index in `moves`.
    fn ordered_indices(
        &mut self,
        position: &G::Position,
        moves: &[G::Move],
        depth: u8,
    ) -> Vec<(usize, G::Move)> {
        if !self.options.pruning || moves.len() < 2 {
            return moves.iter().copied().enumerate().collect();
        }
        if depth < 2 {
            // Ordering by evaluation would cost as much as the search itself
            // here; the last legal moves (the furthest along) are cheap guesses.
            return moves.iter().copied().enumerate().rev().collect();
        }
        let mut scored: Vec<(f64, usize, G::Move)> = moves
            .iter()
            .enumerate()
            .map(|(i, &mv)| {
                let step = self.game.apply(position, mv);
                let value = match terminal_value(self.game, &step.position) {
                    Some(value) => value,
                    None => self.evaluate(&step.position),
                };
                let mine = if step.extra_roll { value } else { 1.0 - value };
                (mine, i, mv)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, i, mv)| (i, mv)).collect()
    }

    /// A move node: the side to move has rolled `roll` and picks its best move.
    fn after_roll(
        &mut self,
        position: &G::Position,
        roll: u8,
        depth: u8,
        alpha: f64,
        beta: f64,
    ) -> f64 {
        self.after_roll_from(position, roll, depth, alpha, beta, None)
    }

    /// A move node where one move's exact value may already be `known`.
    fn after_roll_from(
        &mut self,
        position: &G::Position,
        roll: u8,
        depth: u8,
        alpha: f64,
        beta: f64,
        known: Option<(G::Move, f64)>,
    ) -> f64 {
        self.nodes += 1;
        let moves = self.game.legal_moves(position, roll);
        if moves.is_empty() {
            let passed = self.game.pass(position);
            return 1.0 - self.chance(&passed, depth - 1, 1.0 - beta, 1.0 - alpha);
        }
        if !self.options.pruning {
            return moves
                .iter()
                .map(|&mv| self.move_value(position, mv, depth, LOWEST, HIGHEST))
                .fold(LOWEST, f64::max);
        }
        let mut best = known.map_or(LOWEST, |(_, value)| value);
        if best >= beta {
            return best;
        }
        for mv in self.ordered(position, &moves, depth) {
            if known.is_some_and(|(done, _)| done == mv) {
                continue;
            }
            let value = self.move_value(position, mv, depth, alpha.max(best), beta);
            if value > best {
                best = value;
                if best >= beta {
                    break;
                }
            }
        }
        best
    }
}
