//! A pair of games: the unit every comparison here is made of. Both games
//! use one dice sequence, the seats swapped, so the luck of the dice cancels
//! out; each agent's seed is mixed with the dice seed (one rule, here only),
//! so random and noisy agents vary from pair to pair while every game
//! follows from its seeds. `match`, tournaments, SPRT and the training
//! runs' evaluations all play their games through [`Pair`].

use crate::arena::entrant::Entrant;
use crate::arena::gamelog::{GameOutcome, PlayedGame, play_game, play_recorded};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::{Agent, SpecError};
use sawah_engine::Player;

/// Which of a pair's two games: the first agent on light, or swapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seating {
    /// The first agent plays light (moves first).
    FirstLight,
    /// The second agent plays light.
    Swapped,
}

impl Seating {
    /// Both games of a pair, in the order they are played.
    pub const BOTH: [Seating; 2] = [Seating::FirstLight, Seating::Swapped];
}

/// Two agents and the dice of one pair of games.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    /// The first agent (light in the pair's first game).
    pub first: &'a Entrant,
    /// The second agent.
    pub second: &'a Entrant,
    /// The seed of the dice both games use.
    pub dice_seed: u64,
}

impl<'a> Pair<'a> {
    /// The pair of `first` and `second` with dice `dice_seed`.
    pub fn new(first: &'a Entrant, second: &'a Entrant, dice_seed: u64) -> Pair<'a> {
        Pair {
            first,
            second,
            dice_seed,
        }
    }

    /// The entrants on light and dark in one game of the pair.
    pub fn seats(&self, seating: Seating) -> (&'a Entrant, &'a Entrant) {
        match seating {
            Seating::FirstLight => (self.first, self.second),
            Seating::Swapped => (self.second, self.first),
        }
    }

    /// The id outside bots are told for one game of the pair: who sits
    /// where and the dice, so it is unique in a tournament (as the results
    /// file's key is).
    pub fn game_id(&self, seating: Seating) -> String {
        let (light, dark) = self.seats(seating);
        format!("{light}-vs-{dark}-{:016x}", self.dice_seed)
    }

    /// The agents of one game, built fresh (light, dark), each built-in
    /// agent's seed mixed with the dice seed; an error names the seat
    /// whose agent could not be built.
    #[allow(clippy::type_complexity)]
    pub fn agents<G: HasHeuristic + 'static>(
        &self,
        game: &G,
        seating: Seating,
    ) -> Result<(Box<dyn Agent<G> + Send>, Box<dyn Agent<G> + Send>), (Player, SpecError)> {
        let (light, dark) = self.seats(seating);
        let id = self.game_id(seating);
        let light = light
            .build(game, self.dice_seed, &id)
            .map_err(|e| (Player::Light, e))?;
        let dark = dark
            .build(game, self.dice_seed, &id)
            .map_err(|e| (Player::Dark, e))?;
        Ok((light, dark))
    }

    /// Plays one game of the pair with every roll and move written down.
    pub fn play_recorded<G: HasHeuristic + 'static>(
        &self,
        game: &G,
        seating: Seating,
    ) -> Result<PlayedGame, (Player, SpecError)> {
        let (mut light, mut dark) = self.agents(game, seating)?;
        Ok(play_recorded(
            game,
            light.as_mut(),
            dark.as_mut(),
            self.dice_seed,
        ))
    }

    /// Plays both games: the outcomes with the first agent on light, then on dark.
    pub fn play<G: HasHeuristic + 'static>(
        &self,
        game: &G,
    ) -> Result<(GameOutcome, GameOutcome), SpecError> {
        let play_one = |seating| -> Result<GameOutcome, SpecError> {
            let (mut light, mut dark) = self.agents(game, seating).map_err(|(_, e)| e)?;
            Ok(play_game(
                game,
                light.as_mut(),
                dark.as_mut(),
                self.dice_seed,
            ))
        };
        Ok((play_one(Seating::FirstLight)?, play_one(Seating::Swapped)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_agents::AgentSpec;
    use sawah_engine::race;

    /// Tournaments record each game on its own; matches and SPRT play the
    /// pair at once. Both are this type, so the same pair gives the same
    /// games either way, and a noisy agent plays differently in another pair.
    #[test]
    fn recorded_games_are_the_pair_s_games_and_seeds_vary_by_pair() {
        let rules = race::preset("ur-2").unwrap();
        let noisy = Entrant::from(AgentSpec::parse("heuristic:noise=0.2", "ur-2").unwrap());
        let random = Entrant::from(AgentSpec::parse("random", "ur-2").unwrap());
        let pair = Pair::new(&noisy, &random, 12);
        let (light, dark) = pair.play(&rules).unwrap();
        let recorded: Vec<GameOutcome> = Seating::BOTH
            .into_iter()
            .map(|seating| pair.play_recorded(&rules, seating).unwrap().outcome)
            .collect();
        assert_eq!(recorded, vec![light, dark]);
        let (light, dark) = pair.seats(Seating::Swapped);
        assert_eq!(
            (light.to_string(), dark.to_string()),
            (random.to_string(), noisy.to_string())
        );
        let games: std::collections::HashSet<u64> = (0..20)
            .map(|seed| {
                Pair::new(&noisy, &random, seed)
                    .play(&rules)
                    .unwrap()
                    .0
                    .rolls
            })
            .collect();
        assert!(games.len() > 1, "other dice, other games");
    }
}
