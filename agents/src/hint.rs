//! Move hints: every legal move for a roll, ranked by the reference's win
//! probability after it, with what the move does in the game's own terms
//! ([`sawah_engine::tags`]) and the chance it leaves the opponent to hit;
//! and, before the roll, the roll table: every roll's chance and the best
//! it leads to.

use crate::review::{Reference, ReviewError};
use sawah_engine::{Describe, MoveTags};

/// One legal move, ranked.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedMove<M> {
    /// The move.
    pub mv: M,
    /// The mover's win probability after it, by the reference.
    pub value: f64,
    /// Win probability given away against the best move, in percentage points.
    pub loss_pp: f64,
    /// What it does.
    pub tags: MoveTags,
}

/// Every legal move for `roll` in `position`, best first (ties keep the
/// legal move order). Empty when the roll has no legal move.
pub fn hint<G: Describe>(
    game: &G,
    position: &G::Position,
    roll: u8,
    reference: &mut Reference<'_, G>,
) -> Result<Vec<RankedMove<G::Move>>, ReviewError> {
    let moves = game.legal_moves(position, roll);
    if moves.is_empty() {
        return Ok(Vec::new());
    }
    let values = reference.move_values(game, position, roll, &moves)?;
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut ranked: Vec<RankedMove<G::Move>> = moves
        .iter()
        .zip(values)
        .map(|(&mv, value)| RankedMove {
            mv,
            value,
            loss_pp: (100.0 * (best - value)).max(0.0),
            tags: game.describe(position, mv),
        })
        .collect();
    ranked.sort_by(|a, b| b.value.total_cmp(&a.value));
    Ok(ranked)
}

/// One roll of a position's roll table.
#[derive(Clone, Debug, PartialEq)]
pub struct RollChance<M> {
    /// The roll.
    pub roll: u8,
    /// How likely it is.
    pub probability: f64,
    /// The mover's win probability after it with the best move (after the
    /// pass when there is no legal move), by the reference.
    pub value: f64,
    /// The best move; `None` when the roll has none and the turn passes.
    pub best: Option<M>,
}

/// The roll table of `position` before the roll (what GNU Backgammon calls
/// a temperature map): for every roll, how likely it is and the mover's
/// win probability after it with the best move. Their weighted mean is the
/// position's value before the roll, which a roll's luck is measured from.
pub fn roll_table<G: Describe>(
    game: &G,
    position: &G::Position,
    reference: &mut Reference<'_, G>,
) -> Result<Vec<RollChance<G::Move>>, ReviewError> {
    game.dice()
        .outcomes()
        .map(|(roll, probability)| {
            let (value, index, _) = reference.best_after(game, position, roll)?;
            let best = game.legal_moves(position, roll).get(index).copied();
            Ok(RollChance {
                roll,
                probability,
                value,
                best,
            })
        })
        .collect()
}
