//! [`OutsideAgent`]: an outside bot seated in one game. It asks the bot
//! with `choose` requests that carry everything a bot needs (the position,
//! the roll, every legal move with the position it leads to) and the
//! game's context (its id, the turn, the time for the move), and turns
//! every way a bot can fail into a forfeit's reason.

use super::bot::OutsideBot;
use super::link::Link;
use sawah_agents::{Agent, Choice, Failure, FailureKind};
use sawah_engine::Codec;
use sawah_engine::json::MoveJson;
use sawah_protocol::messages::{BotSpec, ChooseRequest, RefereeFields, Request, RequestLine};
use serde_json::{Value, json};
use std::marker::PhantomData;
use std::sync::Arc;

/// An outside bot playing one game.
pub struct OutsideAgent<G> {
    bot: Arc<OutsideBot>,
    link: Option<Box<dyn Link>>,
    game_id: String,
    seed: u64,
    /// The failure that forfeited this game, once there is one.
    failure: Option<Failure>,
    _game: PhantomData<fn(&G)>,
}

impl<G> OutsideAgent<G> {
    /// `bot` seated in the game `game_id`; `seed` is the seed this seat
    /// would give a built-in agent (sent along, for bots that want one).
    pub fn new(bot: Arc<OutsideBot>, game_id: String, seed: u64) -> OutsideAgent<G> {
        OutsideAgent {
            bot,
            link: None,
            game_id,
            seed,
            failure: None,
            _game: PhantomData,
        }
    }

    fn fail(&mut self, failure: Failure) -> Failure {
        let failure = Failure::new(
            failure.kind,
            format!("{}: {}", self.bot.name(), failure.message),
        );
        self.failure = Some(failure.clone());
        failure
    }
}

/// The `choose` request for a decision, as every outside bot receives it.
#[allow(clippy::too_many_arguments)]
pub fn choose_request<G: Codec>(
    game: &G,
    id: u64,
    bot: Option<&BotSpec>,
    position: &G::Position,
    roll: u8,
    moves: &[G::Move],
    game_id: &str,
    turn: u64,
    time_ms: u64,
    seed: u64,
) -> Value {
    let request = RequestLine {
        id: Some(json!(id)),
        request: Request::Choose(ChooseRequest {
            position: game.position_to_json(position),
            roll,
            bot: bot.cloned(),
            referee: Some(RefereeFields {
                moves: sawah_protocol::listed_moves(game, position, moves),
                game_id: game_id.to_string(),
                turn,
                time_ms,
                seed,
            }),
        }),
    };
    // Writing cannot fail: the request holds strings, numbers, booleans and
    // string-keyed objects only.
    serde_json::to_value(request).unwrap_or(Value::Null)
}

/// The most characters of a bot's answer quoted in a message, escaped.
const SHOWN_CHARS: usize = 120;

/// A short, escaped excerpt of what a bot wrote, for messages.
fn shown(bytes: &[u8]) -> String {
    sawah_engine::text::printable(&String::from_utf8_lossy(bytes), SHOWN_CHARS)
}

/// What a message adds after a line that looks like a log.
pub(crate) const LOG_HINT: &str =
    "; it looks like a log line: stdout carries answers only, write logs to stderr";

/// Whether a line that is not JSON looks like a log line (text, not an
/// attempt at an object): then the error suggests writing logs to stderr.
pub(crate) fn looks_like_a_log(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_start();
    !text.is_empty() && !text.starts_with(['{', '['])
}

/// The legal moves' form, for messages: up to six of them as JSON.
fn legal_forms<G: Codec>(game: &G, moves: &[G::Move]) -> String {
    let mut forms: Vec<String> = moves
        .iter()
        .take(6)
        .map(|&mv| serde_json::to_string(&game.move_to_json(mv)).unwrap_or_default())
        .collect();
    if moves.len() > 6 {
        forms.push(format!("… ({} in all)", moves.len()));
    }
    forms.join(", ")
}

/// The move an answer names, as an index into `moves`, or why it names
/// none: [`FailureKind::Malformed`] for an answer that is not the
/// protocol's shape (with the shape expected), [`FailureKind::Illegal`]
/// for a well-formed move that is not legal (with the legal moves).
pub fn chosen_index<G: Codec>(
    game: &G,
    answer: &[u8],
    id: u64,
    moves: &[G::Move],
) -> Result<usize, Failure> {
    let malformed = |message: String| Failure::new(FailureKind::Malformed, message);
    let answer_value: Value = serde_json::from_slice(answer).map_err(|e| {
        let hint = if looks_like_a_log(answer) {
            LOG_HINT
        } else {
            ""
        };
        malformed(format!(
            "answered with a line that is not JSON ({e}): {}{hint}",
            shown(answer)
        ))
    })?;
    let Value::Object(fields) = &answer_value else {
        return Err(malformed(format!(
            "answered with JSON that is not an object: {}; expected {{\"id\":{id},\"move\":{{\"from\":…,\"to\":…}}}}",
            shown(answer)
        )));
    };
    if let Some(found) = fields.get("id")
        && found != &json!(id)
    {
        return Err(malformed(format!(
            "answered request {} when asked request {id}",
            shown(found.to_string().as_bytes())
        )));
    }
    if let Some(error) = fields.get("error") {
        return Err(malformed(format!(
            "answered with an error: {}",
            shown(error.to_string().as_bytes())
        )));
    }
    let Some(chosen) = fields.get("move") else {
        return Err(malformed(format!(
            "answered without a \"move\": {}; expected {{\"id\":{id},\"move\":{{\"from\":…,\"to\":…}}}}",
            shown(answer)
        )));
    };
    let Ok(named) = serde_json::from_value::<MoveJson>(chosen.clone()) else {
        return Err(malformed(format!(
            "answered a move of the wrong shape: {}; a move is {{\"from\":SQUARE,\"to\":SQUARE or \"off\"}} with numbers for squares, one of the request's \"moves\": {}",
            shown(chosen.to_string().as_bytes()),
            legal_forms(game, moves)
        )));
    };
    // The move as the engine writes moves (`"to":"off"` or a number).
    let named = serde_json::to_value(named).unwrap_or(Value::Null);
    moves
        .iter()
        .position(|&mv| game.move_to_json(mv) == named)
        .ok_or_else(|| {
            Failure::new(
                FailureKind::Illegal,
                format!(
                    "answered a move that is not legal: {}; the legal moves: {}",
                    shown(chosen.to_string().as_bytes()),
                    legal_forms(game, moves)
                ),
            )
        })
}

impl<G: Codec> Agent<G> for OutsideAgent<G> {
    fn name(&self) -> String {
        self.bot.name().to_string()
    }

    /// Outside bots are refereed through [`Agent::try_decide`]; asked
    /// directly, a failure panics with its reason (and a referee catching
    /// panics still records it).
    fn decide(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
    ) -> Choice<G::Move> {
        match self.try_decide(game, position, roll, moves, 0) {
            Ok(choice) => choice,
            Err(failure) => panic!("{failure}"),
        }
    }

    fn try_decide(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
        turn: u64,
    ) -> Result<Choice<G::Move>, Failure> {
        if self.failure.is_some() {
            return Err(Failure::new(
                FailureKind::Crash,
                format!("{}: already forfeited this game", self.bot.name()),
            ));
        }
        let mut link = match self.link.take() {
            Some(link) => link,
            None => match self.bot.take_link() {
                Ok(link) => link,
                Err(failure) => return Err(self.fail(failure)),
            },
        };
        let id = self.bot.request_id();
        let limit = self.bot.referee().move_time;
        let request = choose_request(
            game,
            id,
            self.bot.def().bot.as_ref(),
            position,
            roll,
            moves,
            &self.game_id,
            turn,
            limit.as_millis() as u64,
            self.seed,
        );
        let answer = match link.ask(&request.to_string(), id, limit) {
            Ok(answer) => answer,
            Err(e) => {
                if !e.broken {
                    self.link = Some(link);
                }
                return Err(self.fail(Failure::new(e.kind, e.reason)));
            }
        };
        self.link = Some(link);
        match chosen_index(game, &answer, id, moves) {
            Ok(index) => Ok(Choice {
                chosen: moves[index],
                values: None,
            }),
            Err(failure) => Err(self.fail(failure)),
        }
    }

    fn evaluate(&mut self, _game: &G, _position: &G::Position) -> Option<f64> {
        None
    }
}

impl<G> Drop for OutsideAgent<G> {
    fn drop(&mut self) {
        if let Some(link) = self.link.take() {
            self.bot.put_back(link);
        }
        self.bot.game_ended(self.failure.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;

    /// The ur-2 start with a roll of 2, its legal moves, and the `choose`
    /// request an outside bot would get for it.
    fn start() -> (race::RuleSet, Vec<race::Move>, Value) {
        let rules = race::preset("ur-2").expect("ur-2 is a preset");
        let position = rules.start();
        let moves = rules.legal_moves(&position, 2);
        assert!(!moves.is_empty());
        let request = choose_request(&rules, 7, None, &position, 2, &moves, "g1", 1, 1000, 3);
        (rules, moves.to_vec(), request)
    }

    #[test]
    fn a_listed_move_sent_back_whole_is_read_by_its_from_and_to() {
        let (rules, moves, request) = start();
        let listed = request["moves"][0].clone();
        assert!(listed.get("position").is_some() && listed.get("extra_roll").is_some());
        let answer = json!({"id": 7, "move": listed}).to_string();
        assert_eq!(chosen_index(&rules, answer.as_bytes(), 7, &moves), Ok(0));
        // The short form names the same move.
        let short = json!({"id": 7, "move": {"from": listed["from"], "to": listed["to"]}});
        assert_eq!(
            chosen_index(&rules, short.to_string().as_bytes(), 7, &moves),
            Ok(0)
        );
    }

    #[test]
    fn a_move_without_numbers_is_malformed_and_one_not_listed_is_illegal() {
        let (rules, moves, _) = start();
        let wrong = br#"{"id":7,"move":{"from":"0","to":2,"extra_roll":false}}"#;
        let failure = chosen_index(&rules, wrong, 7, &moves).expect_err("a string square");
        assert_eq!(failure.kind, FailureKind::Malformed);
        assert!(
            failure.message.contains("wrong shape"),
            "{}",
            failure.message
        );
        let missing = br#"{"id":7,"move":{"from":0,"extra_roll":false}}"#;
        let failure = chosen_index(&rules, missing, 7, &moves).expect_err("no to");
        assert_eq!(failure.kind, FailureKind::Malformed);
        let illegal = br#"{"id":7,"move":{"from":3,"to":9,"position":{}}}"#;
        let failure = chosen_index(&rules, illegal, 7, &moves).expect_err("not legal");
        assert_eq!(failure.kind, FailureKind::Illegal);
    }
}
