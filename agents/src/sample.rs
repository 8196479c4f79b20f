//! Positions sampled from random play, for tests and benchmarks of agents.

use sawah_engine::{DiceSource, Game};

/// `count` (position, roll) pairs met in uniformly random games, each with
/// at least `min_moves` legal moves for its roll.
pub fn positions_with_rolls<G: Game>(
    game: &G,
    seed: u64,
    count: usize,
    min_moves: usize,
) -> Vec<(G::Position, u8)> {
    let mut source = DiceSource::from_seed(seed);
    let mut found = Vec::with_capacity(count);
    let mut position = game.start();
    while found.len() < count {
        if game.winner(&position).is_some() {
            position = game.start();
        }
        let roll = source.roll(game.dice());
        let moves = game.legal_moves(&position, roll);
        // Keep about one position in three, so samples spread over whole games.
        if moves.len() >= min_moves && source.below(3) == 0 {
            found.push((position, roll));
        }
        position = match moves.len() {
            0 => game.pass(&position),
            n => game.apply(&position, moves[source.below(n)]).position,
        };
    }
    found
}
