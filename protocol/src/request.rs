//! Turning a request as serde read it from its bytes ([`WireRequest`]:
//! each field as written) into its [`Request`] type, once, with the
//! protocol's error for each fault: the field it names, in the order the
//! fields are read (the command, the position, the roll, then the rest).
//! Each field is deserialized from its bytes straight into its type; only
//! one that does not read is looked at as JSON, to say what is wrong.
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
use crate::wire::{WireRequest, bad_roll, json_of, typed};
use sawah_engine::json::{MoveJson, PositionJson};
use sawah_engine::record::Record;
use sawah_engine::{AnyGame, Codec, with_game};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The field `name` (given as `raw`), or a `missing_field` error.
fn field<'a>(raw: Option<&'a RawValue>, name: &str) -> Result<&'a RawValue, ProtocolError> {
    raw.ok_or_else(|| {
        ProtocolError::new(
            ErrorKind::MissingField,
            format!("the request has no \"{name}\" field"),
        )
    })
}

/// The string field `name`.
fn string_field(raw: Option<&RawValue>, name: &str) -> Result<String, ProtocolError> {
    typed(field(raw, name)?).map_err(|_| {
        ProtocolError::new(
            ErrorKind::InvalidField,
            format!("\"{name}\" must be a string"),
        )
    })
}

/// The request's `"bot"`, when it has one: a spec as text or an object.
fn bot_of(request: &WireRequest) -> Result<Option<BotSpec>, ProtocolError> {
    request
        .bot
        .map(|raw| {
            typed::<BotSpec>(raw).or_else(|bot| {
                BotSpec::from_value(&bot)
                    .map_err(|e| ProtocolError::new(ErrorKind::InvalidBot, e.to_string()))
            })
        })
        .transpose()
}

/// The request's `"move"`, `{"from":F,"to":T}`.
fn move_of(request: &WireRequest) -> Result<MoveJson, ProtocolError> {
    typed(field(request.mv, "move")?).map_err(|value| {
        let reason = MoveJson::deserialize(&value)
            .err()
            .map_or_else(String::new, |e| e.to_string());
        invalid_field(format!(
            "\"move\" {} is not a move {{\"from\":SQUARE,\"to\":SQUARE or \"off\"}}: {reason}",
            sawah_engine::text::printable(&value.to_string(), 80)
        ))
    })
}

fn invalid_field(message: String) -> ProtocolError {
    ProtocolError::new(ErrorKind::InvalidField, message)
}

/// The roll `raw`: a whole number a roll can be (the answer checks it
/// against the game's dice); the error names the game's rolls.
fn roll_of<G: Codec>(game: &G, raw: &RawValue) -> Result<u8, ProtocolError> {
    typed(raw).map_err(|value| bad_roll(game, value))
}

/// The request's command: the one its route gives, else its `"cmd"`.
pub(crate) fn command_of(request: &WireRequest) -> Result<Command, ProtocolError> {
    match request.command {
        Some(command) => Ok(command),
        None => Command::from_name(&string_field(request.cmd, "cmd")?),
    }
}

impl Bot {
    /// Reads `request` into its typed form, or the error it gets.
    pub fn parse(&self, request: &WireRequest) -> Result<Request, ProtocolError> {
        Ok(match command_of(request)? {
            Command::LegalMoves => {
                let (game, position) = self.position_json(request)?;
                let roll = with_game!(&game, g => roll_of(g, field(request.roll, "roll")?))?;
                Request::LegalMoves(LegalMovesRequest { position, roll })
            }
            Command::Choose => {
                let (game, position) = self.position_json(request)?;
                let roll = with_game!(&game, g => roll_of(g, field(request.roll, "roll")?))?;
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
                game: record_of(field(request.game, "game")?)?,
                bot: bot_of(request)?,
            }),
            Command::Hint => {
                let (game, position) = self.position_json(request)?;
                let roll = match request.roll {
                    Some(roll) if roll.get() != "null" => {
                        Some(with_game!(&game, g => roll_of(g, roll))?)
                    }
                    _ => None,
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
                    puzzle: string_field(request.puzzle, "puzzle")?,
                    mv: move_of(request)?,
                })
            }
        })
    }

    /// The request's `"position"`, read (JSON or notation) and named game's:
    /// an object is read straight into its type; what does not read is
    /// looked at as JSON to say what is wrong with it.
    pub(crate) fn position_json(
        &self,
        request: &WireRequest,
    ) -> Result<(AnyGame, PositionJson), ProtocolError> {
        let raw = field(request.position, "position")?;
        let read = match typed::<PositionJson>(raw) {
            Ok(json) => self.registry().position_game(json),
            Err(value) => self.registry().parse_position(&value),
        };
        read.map_err(|e| {
            let kind = ErrorKind::from_name(e.kind()).unwrap_or(ErrorKind::InvalidPosition);
            ProtocolError::new(kind, e.to_string())
        })
    }

    /// The request's `"rules"`, a rule set the bot knows.
    fn known_rules(&self, request: &WireRequest) -> Result<String, ProtocolError> {
        let rules = string_field(request.rules, "rules")?;
        self.rules(&rules)?;
        Ok(rules)
    }

    fn rules_request(&self, request: &WireRequest) -> Result<RulesRequest, ProtocolError> {
        Ok(RulesRequest {
            rules: self.known_rules(request)?,
        })
    }

    fn puzzle_request_of(&self, request: &WireRequest) -> Result<PuzzleRequest, ProtocolError> {
        let rules = self.known_rules(request)?;
        let choice = if let Some(id) = request.puzzle {
            let puzzle = typed::<String>(id)
                .map_err(|_| invalid_field("\"puzzle\" must be a string, a puzzle's id".into()))?;
            PuzzleChoice::Id { puzzle }
        } else if request.date.is_some() {
            PuzzleChoice::Date {
                date: string_field(request.date, "date")?,
            }
        } else if let Some(rating) = request.rating {
            let rating = typed::<f64>(rating)
                .ok()
                .filter(|r| r.is_finite() && r.abs() <= MAX_RATING)
                .ok_or_else(|| {
                    invalid_field(format!(
                        "\"rating\" is {}; it must be a number from -{MAX_RATING} to {MAX_RATING} (an Elo on {rules}'s scale)",
                        json_of(rating)
                    ))
                })?;
            let seed = match request.seed {
                None => None,
                Some(seed) => Some(typed::<u64>(seed).map_err(|seed| {
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

fn daily_request(request: &WireRequest) -> Result<DailyRequest, ProtocolError> {
    let rules = match request.rules {
        None => None,
        Some(rules) => match typed::<String>(rules) {
            Ok(name) if name == sawah_engine::senet::NAME => Some(name),
            _ => {
                return Err(ProtocolError::new(
                    ErrorKind::Unsupported,
                    format!(
                        "the daily game is defined for senet only, not {}",
                        json_of(rules)
                    ),
                ));
            }
        },
    };
    let date = string_field(request.date, "date")?;
    let count = match request.count {
        None => None,
        Some(count) => Some(
            typed::<u64>(count)
                .ok()
                .filter(|&n| n <= MAX_DAILY_COUNT)
                .ok_or_else(|| {
                    invalid_field(format!(
                        "\"count\" is {}; it must be a whole number from 0 to {MAX_DAILY_COUNT}",
                        json_of(count)
                    ))
                })?,
        ),
    };
    Ok(DailyRequest { rules, date, count })
}

/// A review's `"game"`, read by the engine's record reader: its error, the
/// turn at fault named, is the request's.
fn record_of(raw: &RawValue) -> Result<Record, ProtocolError> {
    Record::from_json(&json_of(raw))
        .map_err(|e| ProtocolError::new(ErrorKind::InvalidField, format!("\"game\": {e}")))
}
