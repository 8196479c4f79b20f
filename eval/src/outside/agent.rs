//! [`OutsideAgent`]: an outside bot seated in one game. It asks the bot
//! with `choose` requests that carry everything a bot needs (the position,
//! the roll, every legal move with the position it leads to) and the
//! game's context (its id, the turn, the time for the move), and turns
//! every way a bot can fail into a forfeit's reason.

use super::bot::OutsideBot;
use super::link::Link;
use sawah_agents::{Agent, Choice};
use sawah_engine::Codec;
use sawah_protocol::messages::{ChooseRequest, RefereeFields, Request, RequestLine};
use serde_json::{Value, json};
use std::marker::PhantomData;
use std::sync::Arc;

/// An outside bot playing one game.
pub struct OutsideAgent<G> {
    bot: Arc<OutsideBot>,
    link: Option<Box<dyn Link>>,
    game_id: String,
    seed: u64,
    forfeited: bool,
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
            forfeited: false,
            _game: PhantomData,
        }
    }

    fn fail(&mut self, reason: String) -> String {
        self.forfeited = true;
        format!("{}: {reason}", self.bot.name())
    }
}

/// The `choose` request for a decision, as every outside bot receives it.
#[allow(clippy::too_many_arguments)]
pub fn choose_request<G: Codec>(
    game: &G,
    id: u64,
    bot: Option<&Value>,
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

/// The move an answer names, as an index into `moves`, or why it names none.
pub fn chosen_index<G: Codec>(
    game: &G,
    answer: &[u8],
    id: u64,
    moves: &[G::Move],
) -> Result<usize, String> {
    let shown = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let mut cut: String = text.chars().take(120).collect();
        if text.chars().count() > 120 {
            cut.push('…');
        }
        cut
    };
    let answer_value: Value = serde_json::from_slice(answer)
        .map_err(|e| format!("answered with malformed JSON ({e}): {}", shown(answer)))?;
    let Value::Object(fields) = &answer_value else {
        return Err(format!(
            "answered with JSON that is not an object: {}",
            shown(answer)
        ));
    };
    if let Some(found) = fields.get("id")
        && found != &json!(id)
    {
        return Err(format!("answered request {found} when asked request {id}"));
    }
    if let Some(error) = fields.get("error") {
        return Err(format!(
            "answered with an error: {}",
            shown(error.to_string().as_bytes())
        ));
    }
    let Some(chosen) = fields.get("move") else {
        return Err(format!("answered without a \"move\": {}", shown(answer)));
    };
    let same = |entry: &Value| {
        entry.get("from") == chosen.get("from") && entry.get("to") == chosen.get("to")
    };
    moves
        .iter()
        .position(|&mv| same(&game.move_to_json(mv)))
        .ok_or_else(|| {
            format!(
                "answered a move that is not legal: {}",
                shown(chosen.to_string().as_bytes())
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
            Err(reason) => panic!("{reason}"),
        }
    }

    fn try_decide(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
        turn: u64,
    ) -> Result<Choice<G::Move>, String> {
        if self.forfeited {
            return Err(format!("{}: already forfeited this game", self.bot.name()));
        }
        let mut link = match self.link.take() {
            Some(link) => link,
            None => match self.bot.take_link() {
                Ok(link) => link,
                Err(reason) => return Err(self.fail(reason)),
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
        let answer = match link.ask(&request.to_string(), limit) {
            Ok(answer) => answer,
            Err(e) => {
                if !e.broken {
                    self.link = Some(link);
                }
                return Err(self.fail(e.reason));
            }
        };
        self.link = Some(link);
        match chosen_index(game, &answer, id, moves) {
            Ok(index) => Ok(Choice {
                chosen: moves[index],
                values: None,
            }),
            Err(reason) => Err(self.fail(reason)),
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
        self.bot.game_ended(self.forfeited);
    }
}
