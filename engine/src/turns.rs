//! One game loop: roll, list the legal moves, pass when there are none,
//! otherwise ask the side to move and play its move, until a side wins or
//! [`MAX_ROLLS`] rolls have been thrown; the game ends in a typed
//! [`Ending`]. Tournaments and matches (through the arena's referee), the
//! variant report's measured games, puzzle mining and training's self-play
//! play through it, so every one of them rolls, passes and stops alike. (The Python
//! environment advances one step per call, as Gymnasium asks, so it keeps
//! its own step function over the same engine calls and `MAX_ROLLS`.)
//!
//! # Examples
//!
//! A game of ur between two sides that always take the first legal move:
//!
//! ```
//! use sawah_engine::turns::{Ending, play_turns};
//! use sawah_engine::{DiceSource, Game, race};
//! use std::convert::Infallible;
//!
//! let ur = race::preset("ur").expect("a named rule set");
//! let mut dice = DiceSource::from_seed(7);
//! let mut passes = 0;
//! let played = play_turns(
//!     &ur,
//!     ur.start(),
//!     &mut dice,
//!     |turn| Ok::<_, Infallible>(turn.moves[0]),
//!     |_roll, mv| passes += usize::from(mv.is_none()),
//! );
//! let Ending::Won(winner) = played.ending else {
//!     panic!("no game of ur lasts 100,000 rolls")
//! };
//! assert_eq!(ur.winner(&played.position), Some(winner));
//! assert!(passes > 0 && played.rolls > 30);
//! ```

use crate::dice::DiceSource;
use crate::game::{Game, MAX_ROLLS};
use crate::player::Player;

/// What the loop asks the side to move to decide.
#[derive(Debug)]
pub struct Turn<'a, G: Game> {
    /// The game's dice, after this turn's roll: a decision that draws at
    /// random (self-play's exploration) draws from them, so one seed gives
    /// the whole game.
    pub dice: &'a mut DiceSource,
    /// The position, the side to move being [`Turn::seat`].
    pub position: &'a G::Position,
    /// Who moves.
    pub seat: Player,
    /// The roll.
    pub roll: u8,
    /// The legal moves for the roll, never empty.
    pub moves: &'a [G::Move],
    /// The roll's number in the game, from 1.
    pub rolls: u64,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending<F> {
    /// The side bore off (or, in Senet, brought home) every piece.
    Won(Player),
    /// [`MAX_ROLLS`] rolls were thrown and nobody had won.
    RollLimit,
    /// The game stopped at the side to move's turn: it did not decide (an
    /// outside bot's timeout, crash or illegal move, as its referee words
    /// it), or the caller stopped it before the roll ([`play_turns_until`]:
    /// self-play reaching a position its table knows).
    Stopped {
        /// Who failed.
        seat: Player,
        /// Why.
        failure: F,
    },
}

/// A game played through [`play_turns`].
#[derive(Clone, Debug)]
pub struct Played<P, F> {
    /// How it ended.
    pub ending: Ending<F>,
    /// The rolls thrown (passes included).
    pub rolls: u64,
    /// The last position.
    pub position: P,
}

/// Plays a game from `start` with `dice`: `decide` picks the move of each
/// turn that has a choice to make (one legal move or more), and `on_roll`
/// sees every roll with the move played, `None` for a pass. The game stops
/// when a side has won, when `decide` fails, or after [`MAX_ROLLS`] rolls
/// (a last roll that wins still counts as a win).
pub fn play_turns<G: Game, F>(
    game: &G,
    start: G::Position,
    dice: &mut DiceSource,
    decide: impl FnMut(Turn<'_, G>) -> Result<G::Move, F>,
    on_roll: impl FnMut(u8, Option<G::Move>),
) -> Played<G::Position, F> {
    play_turns_until(game, start, dice, |_| Ok(()), decide, on_roll)
}

/// [`play_turns`], with `before_roll` seeing each position before its roll
/// (a finished game's last position excepted): an error stops the game
/// there, [`Ending::Stopped`] with the side to move.
pub fn play_turns_until<G: Game, F>(
    game: &G,
    start: G::Position,
    dice: &mut DiceSource,
    mut before_roll: impl FnMut(&G::Position) -> Result<(), F>,
    mut decide: impl FnMut(Turn<'_, G>) -> Result<G::Move, F>,
    mut on_roll: impl FnMut(u8, Option<G::Move>),
) -> Played<G::Position, F> {
    let mut position = start;
    let mut rolls = 0;
    while rolls < MAX_ROLLS {
        if let Some(winner) = game.winner(&position) {
            return Played {
                ending: Ending::Won(winner),
                rolls,
                position,
            };
        }
        if let Err(failure) = before_roll(&position) {
            let seat = game.turn(&position);
            return Played {
                ending: Ending::Stopped { seat, failure },
                rolls,
                position,
            };
        }
        let roll = dice.roll(game.dice());
        rolls += 1;
        let moves = game.legal_moves(&position, roll);
        if moves.is_empty() {
            on_roll(roll, None);
            position = game.pass(&position);
            continue;
        }
        let seat = game.turn(&position);
        let turn = Turn {
            dice: &mut *dice,
            position: &position,
            seat,
            roll,
            moves: &moves,
            rolls,
        };
        match decide(turn) {
            Ok(mv) => {
                on_roll(roll, Some(mv));
                position = game.apply(&position, mv).position;
            }
            Err(failure) => {
                return Played {
                    ending: Ending::Stopped { seat, failure },
                    rolls,
                    position,
                };
            }
        }
    }
    let ending = game
        .winner(&position)
        .map_or(Ending::RollLimit, Ending::Won);
    Played {
        ending,
        rolls,
        position,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race;
    use std::convert::Infallible;

    /// The loop every caller wrote before this one, as a reference.
    fn reference_game<G: Game>(game: &G, seed: u64) -> (Option<Player>, u64, Vec<(u8, bool)>) {
        let mut dice = DiceSource::from_seed(seed);
        let mut position = game.start();
        let mut rolls = 0;
        let mut seen = Vec::new();
        while game.winner(&position).is_none() && rolls < MAX_ROLLS {
            let roll = dice.roll(game.dice());
            rolls += 1;
            let moves = game.legal_moves(&position, roll);
            seen.push((roll, !moves.is_empty()));
            position = match moves.last() {
                None => game.pass(&position),
                Some(&mv) => game.apply(&position, mv).position,
            };
        }
        (game.winner(&position), rolls, seen)
    }

    #[test]
    fn games_end_as_the_plain_loop_ends_them() {
        let games = [
            race::preset("ur").unwrap(),
            race::preset("masters").unwrap(),
        ];
        for game in &games {
            for seed in 0..40 {
                let mut dice = DiceSource::from_seed(seed);
                let mut seen = Vec::new();
                let played = play_turns(
                    game,
                    game.start(),
                    &mut dice,
                    |turn| Ok::<_, Infallible>(turn.moves[turn.moves.len() - 1]),
                    |roll, mv| seen.push((roll, mv.is_some())),
                );
                let (winner, rolls, expected) = reference_game(game, seed);
                assert_eq!(played.ending, Ending::Won(winner.unwrap()));
                assert_eq!((played.rolls, seen), (rolls, expected));
            }
        }
    }

    #[test]
    fn a_failed_decision_stops_the_game_at_that_turn() {
        let ur = race::preset("ur").unwrap();
        let mut dice = DiceSource::from_seed(3);
        let mut decisions = 0;
        let played = play_turns(
            &ur,
            ur.start(),
            &mut dice,
            |turn| {
                decisions += 1;
                if decisions == 5 {
                    Err(turn.seat)
                } else {
                    Ok(turn.moves[0])
                }
            },
            |_, _| {},
        );
        let Ending::Stopped { seat, failure } = played.ending else {
            panic!("stopped, not {:?}", played.ending)
        };
        assert_eq!(seat, failure);
        assert_eq!(ur.turn(&played.position), seat);
        assert!(ur.winner(&played.position).is_none());
    }
}
