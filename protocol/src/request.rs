//! Reading a request object into its [`Request`] type, once, with the
//! protocol's error for each fault: the field it names, in the order the
//! fields are read (the command, the position, the roll, then the rest).
//! A request is read whole before anything is looked up for it, so when a
//! `puzzle` or `solve_puzzle` request has a bad field and names a rule set
//! without a puzzle set, the field is reported (before this reader, the
//! missing set was); a request with one fault gets the error it always got.
//!
//! What needs the rules is checked once, by the answer ([`Bot::answer`]),
//! so typed requests from callers in process get the same checks: a
//! position's pieces against its game, and a roll against its dice. Here a
//! position is read and its rule set named, and a roll must be a whole
//! number a roll can be (its error names the game's rolls).

use crate::Bot;
use crate::command::Command;
use crate::error::{ErrorKind, ProtocolError};
use crate::limits::{MAX_DAILY_COUNT, MAX_RATING};
use crate::messages::{
    BotSpec, ChooseRequest, DailyRequest, EvaluateRequest, HintRequest, LegalMovesRequest,
    PuzzleChoice, PuzzleRequest, Request, ReviewRequest, RulesRequest, ScoreRequest,
    SolvePuzzleRequest,
};
use crate::wire::RequestObject;
use crate::wire::bad_roll;
use sawah_engine::json::{MoveJson, PositionJson};
use sawah_engine::{AnyGame, Codec, with_game};
use serde::Deserialize;
use serde_json::Value;

/// The field `name`, or a `missing_field` error.
fn field<'a>(request: &'a RequestObject, name: &str) -> Result<&'a Value, ProtocolError> {
    request.get(name).ok_or_else(|| {
        ProtocolError::new(
            ErrorKind::MissingField,
            format!("the request has no \"{name}\" field"),
        )
    })
}

/// The string field `name`.
fn string_field(request: &RequestObject, name: &str) -> Result<String, ProtocolError> {
    field(request, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| {
            ProtocolError::new(
                ErrorKind::InvalidField,
                format!("\"{name}\" must be a string"),
            )
        })
}

/// The request's `"bot"`, when it has one: a spec as text or an object.
fn bot_of(request: &RequestObject) -> Result<Option<BotSpec>, ProtocolError> {
    request
        .get("bot")
        .map(|bot| {
            BotSpec::from_value(bot)
                .map_err(|e| ProtocolError::new(ErrorKind::InvalidBot, e.to_string()))
        })
        .transpose()
}

/// The request's `"move"`, `{"from":F,"to":T}`.
fn move_of(request: &RequestObject) -> Result<MoveJson, ProtocolError> {
    let value = field(request, "move")?;
    MoveJson::deserialize(value).map_err(|e| {
        invalid_field(format!(
            "\"move\" {} is not a move {{\"from\":SQUARE,\"to\":SQUARE or \"off\"}}: {e}",
            sawah_engine::text::printable(&value.to_string(), 80)
        ))
    })
}

fn invalid_field(message: String) -> ProtocolError {
    ProtocolError::new(ErrorKind::InvalidField, message)
}

/// The roll `value`: a whole number a roll can be (the answer checks it
/// against the game's dice); the error names the game's rolls.
fn roll_of<G: Codec>(game: &G, value: &Value) -> Result<u8, ProtocolError> {
    value
        .as_u64()
        .and_then(|r| u8::try_from(r).ok())
        .ok_or_else(|| bad_roll(game, value))
}

impl Bot {
    /// Reads `request` into its typed form, or the error it gets.
    pub fn parse(&self, request: &RequestObject) -> Result<Request, ProtocolError> {
        Ok(match Command::from_name(&string_field(request, "cmd")?)? {
            Command::LegalMoves => {
                let (game, position) = self.position_json(request)?;
                let roll = with_game!(&game, g => roll_of(g, field(request, "roll")?))?;
                Request::LegalMoves(LegalMovesRequest { position, roll })
            }
            Command::Choose => {
                let (game, position) = self.position_json(request)?;
                let roll = with_game!(&game, g => roll_of(g, field(request, "roll")?))?;
                // What a referee adds for outside bots is not read here.
                Request::Choose(ChooseRequest {
                    position,
                    roll,
                    bot: bot_of(request)?,
                    referee: None,
                })
            }
            Command::Evaluate => {
                let (_, position) = self.position_json(request)?;
                Request::Evaluate(EvaluateRequest {
                    position,
                    bot: bot_of(request)?,
                })
            }
            Command::Start => Request::Start(self.rules_request(request)?),
            Command::Rules => Request::Rules(self.rules_request(request)?),
            Command::ListRules => Request::ListRules,
            // Checked for its game before the position's pieces (a race
            // position is refused as not Senet's, whatever its pieces).
            Command::Score => Request::Score(ScoreRequest {
                position: self.position_json(request)?.1,
            }),
            Command::Daily => Request::Daily(daily_request(request)?),
            Command::Review => Request::Review(ReviewRequest {
                game: field(request, "game")?.clone(),
                bot: bot_of(request)?,
            }),
            Command::Hint => {
                let (game, position) = self.position_json(request)?;
                let roll = match request.get("roll") {
                    None | Some(Value::Null) => None,
                    Some(roll) => Some(with_game!(&game, g => roll_of(g, roll))?),
                };
                Request::Hint(HintRequest {
                    position,
                    roll,
                    bot: bot_of(request)?,
                })
            }
            Command::Hello => Request::Hello,
            Command::Puzzle => Request::Puzzle(self.puzzle_request_of(request)?),
            Command::SolvePuzzle => {
                let rules = self.known_rules(request)?;
                Request::SolvePuzzle(SolvePuzzleRequest {
                    rules,
                    puzzle: string_field(request, "puzzle")?,
                    mv: move_of(request)?,
                })
            }
        })
    }

    /// The request's `"position"`, read (JSON or notation) and named game's.
    pub(crate) fn position_json(
        &self,
        request: &RequestObject,
    ) -> Result<(AnyGame, PositionJson), ProtocolError> {
        self.registry()
            .parse_position(field(request, "position")?)
            .map_err(|e| {
                let kind = ErrorKind::from_name(e.kind()).unwrap_or(ErrorKind::InvalidPosition);
                ProtocolError::new(kind, e.to_string())
            })
    }

    /// The request's `"rules"`, a rule set the bot knows.
    fn known_rules(&self, request: &RequestObject) -> Result<String, ProtocolError> {
        let rules = string_field(request, "rules")?;
        self.rules(&rules)?;
        Ok(rules)
    }

    fn rules_request(&self, request: &RequestObject) -> Result<RulesRequest, ProtocolError> {
        Ok(RulesRequest {
            rules: self.known_rules(request)?,
        })
    }

    fn puzzle_request_of(&self, request: &RequestObject) -> Result<PuzzleRequest, ProtocolError> {
        let rules = self.known_rules(request)?;
        let choice = if let Some(id) = request.get("puzzle") {
            let puzzle = id.as_str().map(str::to_string).ok_or_else(|| {
                invalid_field("\"puzzle\" must be a string, a puzzle's id".into())
            })?;
            PuzzleChoice::Id { puzzle }
        } else if request.contains_key("date") {
            PuzzleChoice::Date {
                date: string_field(request, "date")?,
            }
        } else if let Some(rating) = request.get("rating") {
            let rating = rating
                .as_f64()
                .filter(|r| r.is_finite() && r.abs() <= MAX_RATING)
                .ok_or_else(|| {
                    invalid_field(format!(
                        "\"rating\" is {rating}; it must be a number from -{MAX_RATING} to {MAX_RATING} (an Elo on {rules}'s scale)"
                    ))
                })?;
            let seed = match request.get("seed") {
                None => None,
                Some(seed) => Some(seed.as_u64().ok_or_else(|| {
                    invalid_field(format!("\"seed\" is {seed}; it must be a whole number"))
                })?),
            };
            PuzzleChoice::Rating { rating, seed }
        } else {
            return Err(ProtocolError::new(
                ErrorKind::MissingField,
                "the request has no \"puzzle\", \"date\" or \"rating\" field: a puzzle is asked for by id (\"puzzle\"), by date (the puzzle of the day, YYYY-MM-DD) or near a rating",
            ));
        };
        Ok(PuzzleRequest { rules, choice })
    }
}

fn daily_request(request: &RequestObject) -> Result<DailyRequest, ProtocolError> {
    let rules = match request.get("rules") {
        None => None,
        Some(rules) if rules.as_str() == Some(sawah_engine::senet::NAME) => {
            Some(sawah_engine::senet::NAME.to_string())
        }
        Some(rules) => {
            return Err(ProtocolError::new(
                ErrorKind::Unsupported,
                format!("the daily game is defined for senet only, not {rules}"),
            ));
        }
    };
    let date = string_field(request, "date")?;
    let count = match request.get("count") {
        None => None,
        Some(value) => Some(
            value
                .as_u64()
                .filter(|&n| n <= MAX_DAILY_COUNT)
                .ok_or_else(|| {
                    invalid_field(format!(
                        "\"count\" is {value}; it must be a whole number from 0 to {MAX_DAILY_COUNT}"
                    ))
                })?,
        ),
    };
    Ok(DailyRequest { rules, date, count })
}
