//! Uniformly random playouts: for property tests, perft-style checks and benchmarks.

use crate::dice::DiceSource;
use crate::game::Game;
use crate::player::Player;

/// What a playout did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutStats {
    /// The winner, or `None` if the ply limit was reached first.
    pub winner: Option<Player>,
    /// Rolls made (every roll is one ply, passes and extra rolls included).
    pub plies: u64,
    /// Moves made (passes not counted).
    pub moves: u64,
}

/// Plays from `position` with uniformly random legal moves until the game
/// ends or `max_plies` rolls have been made.
pub fn random_playout<G: Game>(
    game: &G,
    mut position: G::Position,
    source: &mut DiceSource,
    max_plies: u64,
) -> PlayoutStats {
    let mut plies = 0;
    let mut moves = 0;
    while plies < max_plies {
        if let Some(winner) = game.winner(&position) {
            return PlayoutStats {
                winner: Some(winner),
                plies,
                moves,
            };
        }
        let roll = source.roll(game.dice());
        let legal = game.legal_moves(&position, roll);
        plies += 1;
        if legal.is_empty() {
            position = game.pass(&position);
        } else {
            let mv = legal[source.below(legal.len())];
            position = game.apply(&position, mv).position;
            moves += 1;
        }
    }
    PlayoutStats {
        winner: game.winner(&position),
        plies,
        moves,
    }
}
