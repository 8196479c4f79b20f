//! Games played with every roll and move written down, agent failures
//! caught, and recorded games replayed.
//!
//! The move tokens and the replay are the engine's
//! ([`sawah_engine::record`]), re-exported here.

use sawah_agents::{Agent, Failure, FailureKind};
pub use sawah_engine::record::{
    ReplayError, ReplayProblem, ReplayStep, move_token, replay, replay_from,
};
use sawah_engine::turns::{Ending, Turn, play_turns};
use sawah_engine::{Codec, DiceSource, Game, Player};
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// An agent that failed during a game: it panicked or chose an illegal
/// move. The game is scored as a loss for that agent (a forfeit).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFailure {
    /// The seat of the agent that failed.
    pub seat: Player,
    /// The kind of failure (results written before kinds were recorded
    /// have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FailureKind>,
    /// What went wrong.
    pub message: String,
}

/// A game with its record.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    /// Winner (a forfeit names the failing agent's opponent) and rolls.
    pub outcome: GameOutcome,
    /// One token per roll, in order.
    pub moves: Vec<String>,
    /// The failure that ended the game early, if any.
    pub failure: Option<AgentFailure>,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Games longer than this many rolls are stopped and scored as half a win
/// each: the engine's one limit for every game loop.
pub use sawah_engine::MAX_ROLLS;

/// One finished (or stopped) game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// The winner, or `None` if the game hit [`MAX_ROLLS`].
    pub winner: Option<Player>,
    /// Rolls made.
    pub rolls: u64,
    /// The game ended by a forfeit: the loser failed (crashed, timed out,
    /// answered garbage or an illegal move).
    pub forfeit: bool,
}

/// Plays one game from the start: `light` and `dark` choose, the dice come
/// from `dice_seed`, one roll at a time in order. An agent that panics or
/// plays an illegal move loses the game (see [`play_with`]).
pub fn play_game<G: Game>(
    game: &G,
    light: &mut dyn Agent<G>,
    dark: &mut dyn Agent<G>,
    dice_seed: u64,
) -> GameOutcome {
    play_with(game, light, dark, dice_seed, |_, _| {}).0
}

/// One decision as a referee takes it: the move `agent` plays from
/// `legal` (non-empty) at turn `turn`, or why it forfeits the game instead
/// (it panicked, failed in [`Agent::try_decide`], or chose an illegal move).
pub fn refereed_move<G: Game>(
    agent: &mut dyn Agent<G>,
    game: &G,
    position: &G::Position,
    roll: u8,
    legal: &[G::Move],
    turn: u64,
) -> Result<G::Move, Failure> {
    let choice = catch_unwind(AssertUnwindSafe(|| {
        agent.try_decide(game, position, roll, legal, turn)
    }));
    match choice {
        Ok(Ok(choice)) if legal.contains(&choice.chosen) => Ok(choice.chosen),
        Ok(Ok(choice)) => Err(Failure::new(
            FailureKind::Illegal,
            format!("illegal move {:?} for roll {roll}", choice.chosen),
        )),
        Ok(Err(failure)) => Err(failure),
        Err(payload) => Err(Failure::new(
            FailureKind::Crash,
            format!("panicked: {}", panic_message(payload.as_ref())),
        )),
    }
}

/// Plays one game from the start with dice `dice_seed`, calling `on_roll`
/// with every roll and the move made (`None`: a pass). An agent that panics,
/// fails ([`Agent::try_decide`]: an outside bot's timeout, crash or garbage)
/// or returns an illegal move forfeits the game; the failure is returned.
/// The referee behind [`play_game`] and [`play_recorded`], over the
/// engine's one game loop ([`play_turns`]).
pub fn play_with<G: Game>(
    game: &G,
    light: &mut dyn Agent<G>,
    dark: &mut dyn Agent<G>,
    dice_seed: u64,
    mut on_roll: impl FnMut(u8, Option<G::Move>),
) -> (GameOutcome, Option<AgentFailure>) {
    let mut dice = DiceSource::from_seed(dice_seed);
    let decide = |turn: Turn<'_, G>| {
        let agent: &mut dyn Agent<G> = match turn.seat {
            Player::Light => &mut *light,
            Player::Dark => &mut *dark,
        };
        refereed_move(
            agent,
            game,
            turn.position,
            turn.roll,
            turn.moves,
            turn.rolls,
        )
    };
    let played = play_turns(game, game.start(), &mut dice, decide, &mut on_roll);
    let outcome = |winner, forfeit| GameOutcome {
        winner,
        rolls: played.rolls,
        forfeit,
    };
    match played.ending {
        Ending::Won(winner) => (outcome(Some(winner), false), None),
        Ending::RollLimit => (outcome(None, false), None),
        Ending::Stopped { seat, failure } => {
            let failure = AgentFailure {
                seat,
                kind: Some(failure.kind),
                message: failure.message,
            };
            (outcome(Some(seat.other()), true), Some(failure))
        }
    }
}

/// Plays one game like [`play_with`], writing every roll down as a token.
pub fn play_recorded<G: Game + Codec>(
    game: &G,
    light: &mut dyn Agent<G>,
    dark: &mut dyn Agent<G>,
    dice_seed: u64,
) -> PlayedGame {
    let mut moves = Vec::new();
    let (outcome, failure) = play_with(game, light, dark, dice_seed, |roll, mv| {
        moves.push(move_token(game, roll, mv));
    });
    PlayedGame {
        outcome,
        moves,
        failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::matches::play_game;
    use sawah_agents::{AgentSpec, Choice, RandomAgent};
    use sawah_engine::race;
    use sawah_engine::senet::Senet;

    #[test]
    fn recorded_games_equal_plain_games_and_replay_to_the_same_end() {
        let rules = race::preset("ur").unwrap();
        for seed in 0..20 {
            let plain = play_game(
                &rules,
                &mut RandomAgent::new(1),
                &mut RandomAgent::new(2),
                seed,
            );
            let recorded = play_recorded(
                &rules,
                &mut RandomAgent::new(1),
                &mut RandomAgent::new(2),
                seed,
            );
            assert_eq!(plain, recorded.outcome);
            assert_eq!(recorded.moves.len() as u64, recorded.outcome.rolls);
            let end = replay(&rules, &recorded.moves, |_| {}).unwrap();
            assert_eq!(rules.winner(&end), recorded.outcome.winner);
        }
        let senet = Senet::new();
        let spec = AgentSpec::parse("heuristic", "senet").unwrap();
        let mut a = spec.build(&senet).unwrap();
        let mut b = spec.build(&senet).unwrap();
        let recorded = play_recorded(&senet, a.as_mut(), b.as_mut(), 3);
        let end = replay(&senet, &recorded.moves, |_| {}).unwrap();
        assert_eq!(senet.winner(&end), recorded.outcome.winner);
    }

    /// An agent that breaks: it panics on its third decision.
    struct Faulty(u32);
    impl Agent<race::RuleSet> for Faulty {
        fn name(&self) -> String {
            "faulty".into()
        }
        fn decide(
            &mut self,
            _: &race::RuleSet,
            _: &race::Position,
            _: u8,
            moves: &[race::Move],
        ) -> Choice<race::Move> {
            self.0 += 1;
            assert!(self.0 < 3, "faulty agent gave up");
            Choice {
                chosen: moves[0],
                values: None,
            }
        }
        fn evaluate(&mut self, _: &race::RuleSet, _: &race::Position) -> Option<f64> {
            None
        }
    }

    #[test]
    fn a_panicking_agent_forfeits_and_the_failure_is_recorded() {
        let rules = race::preset("ur").unwrap();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let played = play_recorded(&rules, &mut RandomAgent::new(1), &mut Faulty(0), 5);
        std::panic::set_hook(previous);
        let failure = played.failure.expect("the agent panicked");
        assert_eq!(failure.seat, Player::Dark);
        assert!(
            failure.message.contains("faulty agent gave up"),
            "{failure:?}"
        );
        assert_eq!(played.outcome.winner, Some(Player::Light));
    }
}
