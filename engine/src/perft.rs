//! Perft-style counts: how many distinct positions are reachable from a start.

use crate::game::Game;
use std::collections::HashSet;

/// The number of distinct positions (side to move included) reachable from
/// `start` in exactly `k` rolls, for every `k` in `0..=max_rolls`.
///
/// Every roll with a positive probability is followed: a roll with no legal
/// move (0 included) passes the turn; an extra roll is a roll like any other.
/// Finished positions have no successors.
pub fn distinct_positions<G: Game>(game: &G, start: G::Position, max_rolls: usize) -> Vec<u64> {
    let mut counts = vec![1];
    let mut level: HashSet<G::Position> = HashSet::from([start]);
    for _ in 0..max_rolls {
        let mut next = HashSet::with_capacity(level.len() * 4);
        for position in &level {
            if game.winner(position).is_some() {
                continue;
            }
            for (roll, _) in game.dice().outcomes() {
                let moves = game.legal_moves(position, roll);
                if moves.is_empty() {
                    next.insert(game.pass(position));
                }
                for &mv in moves.iter() {
                    next.insert(game.apply(position, mv).position);
                }
            }
        }
        counts.push(next.len() as u64);
        level = next;
    }
    counts
}
