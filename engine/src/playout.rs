//! Uniformly random playouts: for property tests, perft-style checks and benchmarks.

use crate::dice::DiceSource;
use crate::game::Game;
use crate::movelist::MoveList;
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

/// Uniformly random games, one after another, turn by turn: the one
/// sampler of positions from random play (tests, benchmarks, the load
/// tool, the outside-bot check). A caller takes each [`RandomGames::turn`],
/// may draw from [`RandomGames::source`] to decide what to keep, then
/// [`RandomGames::play`]s on; the same seed and calls give the same games.
pub struct RandomGames<'g, G: Game> {
    game: &'g G,
    source: DiceSource,
    position: G::Position,
}

impl<'g, G: Game> RandomGames<'g, G> {
    /// Random games of `game` from its start, with dice seeded by `seed`.
    pub fn new(game: &'g G, seed: u64) -> RandomGames<'g, G> {
        RandomGames {
            game,
            source: DiceSource::from_seed(seed),
            position: game.start(),
        }
    }

    /// The next turn: the position to move from (a new game's start once
    /// the last one ended), the roll, and its legal moves.
    pub fn turn(&mut self) -> (G::Position, u8, MoveList<G::Move>) {
        if self.game.winner(&self.position).is_some() {
            self.position = self.game.start();
        }
        let roll = self.source.roll(self.game.dice());
        (
            self.position,
            roll,
            self.game.legal_moves(&self.position, roll),
        )
    }

    /// Plays one of `moves` (the last turn's) uniformly at random, or
    /// passes when there is none.
    pub fn play(&mut self, moves: &MoveList<G::Move>) {
        self.position = match moves.len() {
            0 => self.game.pass(&self.position),
            n => {
                self.game
                    .apply(&self.position, moves[self.source.below(n)])
                    .position
            }
        };
    }

    /// The dice, for a caller's own draws between [`RandomGames::turn`] and
    /// [`RandomGames::play`].
    pub fn source(&mut self) -> &mut DiceSource {
        &mut self.source
    }
}

/// `count` (position, roll) pairs met in uniformly random games seeded by
/// `seed`, each with at least `min_moves` legal moves for its roll; about
/// one turn in three is kept, so the samples spread over whole games.
pub fn positions_with_rolls<G: Game>(
    game: &G,
    seed: u64,
    count: usize,
    min_moves: usize,
) -> Vec<(G::Position, u8)> {
    let mut games = RandomGames::new(game, seed);
    let mut found = Vec::with_capacity(count);
    while found.len() < count {
        let (position, roll, moves) = games.turn();
        if moves.len() >= min_moves && games.source().below(3) == 0 {
            found.push((position, roll));
        }
        games.play(&moves);
    }
    found
}

/// Every position met, in order, in `count` turns of uniformly random games
/// seeded by `seed` (a benchmark's workload).
pub fn positions_of_random_games<G: Game>(game: &G, seed: u64, count: usize) -> Vec<G::Position> {
    let mut games = RandomGames::new(game, seed);
    (0..count)
        .map(|_| {
            let (position, _, moves) = games.turn();
            games.play(&moves);
            position
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler as it was written before [`RandomGames`]: the samples
    /// that benchmarks and tests were measured on must not change.
    fn reference<G: Game>(game: &G, seed: u64, count: usize, min: usize) -> Vec<(G::Position, u8)> {
        let mut source = DiceSource::from_seed(seed);
        let mut found = Vec::new();
        let mut position = game.start();
        while found.len() < count {
            if game.winner(&position).is_some() {
                position = game.start();
            }
            let roll = source.roll(game.dice());
            let moves = game.legal_moves(&position, roll);
            if moves.len() >= min && source.below(3) == 0 {
                found.push((position, roll));
            }
            position = match moves.len() {
                0 => game.pass(&position),
                n => game.apply(&position, moves[source.below(n)]).position,
            };
        }
        found
    }

    #[test]
    fn the_sampler_gives_the_samples_it_always_gave() {
        let ur = crate::race::preset("ur").unwrap();
        let senet = crate::senet::Senet::new();
        for (seed, min) in [(1, 2), (9, 0), (11, 2)] {
            assert_eq!(
                positions_with_rolls(&ur, seed, 300, min),
                reference(&ur, seed, 300, min)
            );
            assert_eq!(
                positions_with_rolls(&senet, seed, 300, min),
                reference(&senet, seed, 300, min)
            );
        }
        let all = positions_of_random_games(&ur, 99, 500);
        assert_eq!(all.len(), 500);
        assert_eq!(all[0], ur.start());
    }
}
