//! Games played with every roll and move written down, agent failures
//! caught, and recorded games replayed.
//!
//! A move is written as a short token, `ROLL:FROM-TO` (`3:0-3`,
//! `2:13-off`), or `ROLL:pass` when the roll had no legal move. `FROM` and
//! `TO` are the squares of the move's JSON form (DESIGN §3), so the tokens
//! read the same for every rule set and replay through the engine.

use crate::matches::{GameOutcome, MAX_ROLLS};
use sawah_agents::Agent;
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

fn square_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The token of `mv` played with `roll` (`None`: the roll was passed).
pub fn move_token<G: Game + Codec>(game: &G, roll: u8, mv: Option<G::Move>) -> String {
    match mv {
        None => format!("{roll}:pass"),
        Some(mv) => {
            let json = game.move_to_json(mv);
            format!(
                "{roll}:{}-{}",
                square_text(&json["from"]),
                square_text(&json["to"])
            )
        }
    }
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

/// Plays one game from the start with dice `dice_seed`, calling `on_roll`
/// with every roll and the move made (`None`: a pass). An agent that panics
/// or returns an illegal move forfeits the game; the failure is returned.
/// The one game loop behind [`crate::matches::play_game`] and [`play_recorded`].
pub fn play_with<G: Game>(
    game: &G,
    light: &mut dyn Agent<G>,
    dark: &mut dyn Agent<G>,
    dice_seed: u64,
    mut on_roll: impl FnMut(u8, Option<G::Move>),
) -> (GameOutcome, Option<AgentFailure>) {
    let mut dice = DiceSource::from_seed(dice_seed);
    let mut position = game.start();
    let mut rolls = 0;
    while rolls < MAX_ROLLS {
        if let Some(winner) = game.winner(&position) {
            let outcome = GameOutcome {
                winner: Some(winner),
                rolls,
            };
            return (outcome, None);
        }
        let roll = dice.roll(game.dice());
        rolls += 1;
        let legal = game.legal_moves(&position, roll);
        if legal.is_empty() {
            on_roll(roll, None);
            position = game.pass(&position);
            continue;
        }
        let seat = game.turn(&position);
        let agent: &mut dyn Agent<G> = match seat {
            Player::Light => &mut *light,
            Player::Dark => &mut *dark,
        };
        let choice = catch_unwind(AssertUnwindSafe(|| {
            agent.choose(game, &position, roll, &legal)
        }));
        let message = match choice {
            Ok(mv) if legal.contains(&mv) => {
                on_roll(roll, Some(mv));
                position = game.apply(&position, mv).position;
                continue;
            }
            Ok(mv) => format!("illegal move {mv:?} for roll {roll}"),
            Err(payload) => format!("panicked: {}", panic_message(payload.as_ref())),
        };
        let outcome = GameOutcome {
            winner: Some(seat.other()),
            rolls,
        };
        return (outcome, Some(AgentFailure { seat, message }));
    }
    let outcome = GameOutcome {
        winner: game.winner(&position),
        rolls,
    };
    (outcome, None)
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

/// One step of a replayed game: the position before the roll, the roll,
/// the legal moves and the move played (`None` for a pass).
pub struct ReplayStep<'a, G: Game> {
    /// The position the roll was made in.
    pub position: &'a G::Position,
    /// The roll.
    pub roll: u8,
    /// Every legal move for the roll.
    pub legal: &'a [G::Move],
    /// The move played.
    pub played: Option<G::Move>,
}

/// What was wrong with a recorded move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayProblem {
    /// Not `ROLL:FROM-TO` or `ROLL:pass`.
    #[error("expected ROLL:FROM-TO or ROLL:pass")]
    NotAToken,
    /// The roll is not a number.
    #[error("the roll is not a number")]
    RollNotANumber,
    /// The dice cannot show this roll.
    #[error("no such roll")]
    NoSuchRoll,
    /// A move after the end of the game.
    #[error("the game was already over")]
    GameOver,
    /// A pass although a move was possible.
    #[error("a pass although there were legal moves")]
    PassWithMoves,
    /// Not among the legal moves for the roll.
    #[error("not a legal move here")]
    IllegalMove,
}

/// A recorded game that does not replay: which move and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number} ({token:?}): {problem}")]
pub struct ReplayError {
    /// The move's number, from 1.
    pub number: usize,
    /// The move as recorded.
    pub token: String,
    /// What was wrong.
    pub problem: ReplayProblem,
}

/// Replays recorded tokens from the start, calling `visit` on each step.
/// Fails, naming the token, on one that does not parse or is not legal.
pub fn replay<G: Game + Codec>(
    game: &G,
    tokens: &[String],
    mut visit: impl FnMut(ReplayStep<'_, G>),
) -> Result<G::Position, ReplayError> {
    let mut position = game.start();
    for (k, token) in tokens.iter().enumerate() {
        let bad = |problem: ReplayProblem| ReplayError {
            number: k + 1,
            token: token.clone(),
            problem,
        };
        let (roll_text, rest) = token
            .split_once(':')
            .ok_or_else(|| bad(ReplayProblem::NotAToken))?;
        let roll: u8 = roll_text
            .parse()
            .map_err(|_| bad(ReplayProblem::RollNotANumber))?;
        if usize::from(roll) >= game.dice().probabilities().len() {
            return Err(bad(ReplayProblem::NoSuchRoll));
        }
        if game.winner(&position).is_some() {
            return Err(bad(ReplayProblem::GameOver));
        }
        let legal = game.legal_moves(&position, roll);
        let played = if rest == "pass" {
            if !legal.is_empty() {
                return Err(bad(ReplayProblem::PassWithMoves));
            }
            None
        } else {
            let found = legal
                .iter()
                .copied()
                .find(|&mv| move_token(game, roll, Some(mv)) == *token);
            Some(found.ok_or_else(|| bad(ReplayProblem::IllegalMove))?)
        };
        visit(ReplayStep {
            position: &position,
            roll,
            legal: &legal,
            played,
        });
        position = match played {
            Some(mv) => game.apply(&position, mv).position,
            None => game.pass(&position),
        };
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::play_game;
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

    #[test]
    fn bad_tokens_are_named() {
        let rules = race::preset("ur").unwrap();
        for (tokens, expected) in [
            (vec!["x"], "ROLL:FROM-TO"),
            (vec!["q:pass"], "not a number"),
            (vec!["9:pass"], "no such roll"),
            (vec!["2:5-7"], "not a legal move"),
            (vec!["0:pass", "2:pass"], "a pass although"),
        ] {
            let tokens: Vec<String> = tokens.into_iter().map(String::from).collect();
            let err = replay(&rules, &tokens, |_| {}).unwrap_err();
            assert!(err.to_string().contains(expected), "{tokens:?}: {err}");
            assert_eq!(err.number, tokens.len(), "the last move is the bad one");
        }
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
