//! Perfect play from a solved table, and the measure of a move's loss.

use crate::agent::{Agent, Choice};
use crate::evaluator::best_index;
use crate::table::Table;

use sawah_engine::race::{Move, Position, RuleSet};
use std::sync::Arc;

/// The mover's win probability after `mv`, by the table.
pub fn move_value(rules: &RuleSet, table: &Table, position: &Position, mv: Move) -> f64 {
    let outcome = rules.apply(position, mv);
    let mover = position.turn();
    match rules.winner(&outcome.position) {
        Some(winner) => f64::from(u8::from(winner == mover)),
        None if outcome.extra_roll => table.value(&outcome.position),
        None => 1.0 - table.value(&outcome.position),
    }
}

/// A position's value for the side to move: exact for finished games, else the table's.
pub fn position_value(rules: &RuleSet, table: &Table, position: &Position) -> f64 {
    crate::evaluator::terminal_value(rules, position).unwrap_or_else(|| table.value(position))
}

/// How much win probability `chosen` gives away against the best move for
/// `roll` (0 for a best move, and when there is no choice). The building
/// block of every agent's mean loss per move.
pub fn loss(rules: &RuleSet, table: &Table, position: &Position, roll: u8, chosen: Move) -> f64 {
    let moves = rules.legal_moves(position, roll);
    let best = moves
        .iter()
        .map(|&mv| move_value(rules, table, position, mv))
        .fold(f64::NEG_INFINITY, f64::max);
    if moves.is_empty() {
        return 0.0;
    }
    (best - move_value(rules, table, position, chosen)).max(0.0)
}

/// Plays the move with the highest win probability by a solved table.
#[derive(Clone, Debug)]
pub struct PerfectAgent {
    table: Arc<Table>,
}

impl PerfectAgent {
    /// A perfect agent reading `table` (which must belong to the rule set it plays).
    pub fn new(table: Arc<Table>) -> PerfectAgent {
        PerfectAgent { table }
    }
}

impl Agent<RuleSet> for PerfectAgent {
    fn name(&self) -> String {
        "perfect".to_string()
    }

    fn decide(
        &mut self,
        rules: &RuleSet,
        position: &Position,
        _roll: u8,
        moves: &[Move],
    ) -> Choice<Move> {
        let values: Vec<f64> = moves
            .iter()
            .map(|&mv| move_value(rules, &self.table, position, mv))
            .collect();
        Choice {
            chosen: moves[best_index(&values)],
            values: Some(values),
        }
    }

    fn evaluate(&mut self, rules: &RuleSet, position: &Position) -> Option<f64> {
        Some(position_value(rules, &self.table, position))
    }
}
