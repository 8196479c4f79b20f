//! Computer opponents. For now the agent interface and the random agent;
//! heuristic, search, neural and perfect agents build on the same trait.

use sawah_engine::{DiceSource, Game};

/// Something that picks a move: given the position, the roll and the legal
/// moves (never empty), it returns one of those moves.
pub trait Agent<G: Game> {
    /// A short name for logs and tables.
    fn name(&self) -> String;
    /// Picks one of `moves` (non-empty) for the side to move.
    fn choose(&mut self, game: &G, position: &G::Position, roll: u8, moves: &[G::Move]) -> G::Move;
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

    fn choose(
        &mut self,
        _game: &G,
        _position: &G::Position,
        _roll: u8,
        moves: &[G::Move],
    ) -> G::Move {
        moves[self.source.below(moves.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;

    #[test]
    fn random_agent_is_deterministic_and_uses_every_move() {
        let rules = race::preset("sawah").unwrap();
        let position = rules.start();
        let moves = [
            race::Move { from: 0, to: 1 },
            race::Move { from: 0, to: 2 },
            race::Move { from: 0, to: 3 },
        ];
        let picks = |seed| {
            let mut agent = RandomAgent::new(seed);
            (0..300)
                .map(|_| agent.choose(&rules, &position, 1, &moves))
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(3), picks(3));
        for mv in moves {
            assert!(picks(3).contains(&mv));
        }
    }
}
