//! The bot protocol (DESIGN.md §3.2): one JSON request per line in, one JSON
//! response per line out, in order. Every line gets exactly one response,
//! a malformed one an error response; the server never stops before end of input.

use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::{AgentSpec, evaluator::terminal_value};
use sawah_engine::registry::Registry;
use sawah_engine::senet::daily;
use sawah_engine::{AnyGame, Codec, with_game};
use serde_json::{Map, Value, json};
use std::io::{self, BufRead, Write};

/// The commands this server understands.
pub const COMMANDS: [&str; 6] = [
    "legal_moves",
    "start",
    "rules",
    "list_rules",
    "score",
    "daily",
];

/// Most throws one `daily` request may ask for.
pub const MAX_DAILY_COUNT: u64 = 100_000;

/// A protocol error: a machine-readable kind and a message for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// One of `invalid_json`, `invalid_request`, `missing_field`,
    /// `invalid_field`, `unknown_command`, `unknown_rules`,
    /// `invalid_position`, `invalid_roll`, `invalid_bot`, `game_not_over`, `unsupported`.
    pub kind: &'static str,
    /// What was wrong, naming the field or value.
    pub message: String,
}

impl ProtocolError {
    fn new(kind: &'static str, message: impl Into<String>) -> ProtocolError {
        ProtocolError {
            kind,
            message: message.into(),
        }
    }
}

type Reply = Result<Value, ProtocolError>;

/// Serves requests against a registry of rule sets.
#[derive(Clone, Debug, Default)]
pub struct Bot {
    registry: Registry,
    table: Option<String>,
    models: Option<sawah_agents::manifest::Models>,
}

/// What the server adds to requests: a default solved table and the
/// shipped levels.
struct Serving<'a> {
    table: Option<&'a str>,
    models: Option<&'a sawah_agents::manifest::Models>,
}

fn field<'a>(request: &'a Map<String, Value>, name: &str) -> Result<&'a Value, ProtocolError> {
    request.get(name).ok_or_else(|| {
        ProtocolError::new(
            "missing_field",
            format!("the request has no \"{name}\" field"),
        )
    })
}

fn string_field<'a>(request: &'a Map<String, Value>, name: &str) -> Result<&'a str, ProtocolError> {
    field(request, name)?
        .as_str()
        .ok_or_else(|| ProtocolError::new("invalid_field", format!("\"{name}\" must be a string")))
}

/// A position from the request, validated for its game.
fn position_of<G: Codec>(
    game: &G,
    json: &sawah_engine::json::PositionJson,
) -> Result<G::Position, ProtocolError> {
    game.position_from_json(json)
        .map_err(|e| ProtocolError::new("invalid_position", format!("invalid position: {e}")))
}

/// The roll of a request, checked against the game's dice.
fn roll_of<G: Codec>(game: &G, request: &Map<String, Value>) -> Result<u8, ProtocolError> {
    let roll_value = field(request, "roll")?;
    let dice = game.dice();
    let min = dice.outcomes().map(|(roll, _)| roll).min().unwrap_or(0);
    let max = dice.max_roll();
    roll_value
        .as_u64()
        .filter(|&r| (u64::from(min)..=u64::from(max)).contains(&r))
        .map(|r| r as u8)
        .ok_or_else(|| {
            ProtocolError::new(
                "invalid_roll",
                format!(
                    "roll {roll_value} is not a whole number from {min} to {max} for {}",
                    game.name()
                ),
            )
        })
}

/// The agent a request names in `"bot"` (a spec, string or object, or a
/// preset), built for the game; `perfect` without a table uses the server's.
/// A server started with a table plays and evaluates perfectly from it when
/// a request names no bot (`{"cmd":"evaluate","position":P}`); without a
/// table, `"bot"` is required.
fn agent_of<G: Codec + HasHeuristic + 'static>(
    game: &G,
    request: &Map<String, Value>,
    serving: &Serving<'_>,
) -> Result<(AgentSpec, Box<dyn sawah_agents::Agent<G> + Send>), ProtocolError> {
    let invalid = |e: sawah_agents::SpecError| ProtocolError::new("invalid_bot", e.to_string());
    let perfect = Value::String("perfect".to_string());
    let bot = match field(request, "bot") {
        Err(_) if serving.table.is_some() => &perfect,
        Err(missing) => {
            return Err(ProtocolError {
                message: format!(
                    "{} (a server started with --table plays perfectly from it without one)",
                    missing.message
                ),
                ..missing
            });
        }
        Ok(bot) => bot,
    };
    // A level name ("hard", "easy:seed=2") resolves through the shipped models.
    let bot = match (bot, serving.models) {
        (Value::String(text), Some(models)) => Value::String(models.expand(text, game.name())),
        _ => bot.clone(),
    };
    let mut spec = AgentSpec::from_json(&bot, game.name()).map_err(invalid)?;
    if spec.table.is_none() {
        spec.table = serving.table.map(str::to_string);
    }
    let agent = spec.build(game).map_err(invalid)?;
    Ok((spec, agent))
}

fn legal_moves<G: Codec>(
    game: &G,
    json: &sawah_engine::json::PositionJson,
    request: &Map<String, Value>,
) -> Reply {
    let position = position_of(game, json)?;
    let roll = roll_of(game, request)?;
    let moves: Vec<Value> = game
        .legal_moves(&position, roll)
        .iter()
        .map(|&mv| {
            let step = game.apply(&position, mv);
            let mut entry = game.move_to_json(mv);
            entry["extra_roll"] = Value::Bool(step.extra_roll);
            entry["position"] = json!(game.position_to_json(&step.position));
            entry
        })
        .collect();
    Ok(json!({ "moves": moves }))
}

fn choose<G: Codec + HasHeuristic + 'static>(
    game: &G,
    json: &sawah_engine::json::PositionJson,
    request: &Map<String, Value>,
    serving: &Serving<'_>,
) -> Reply {
    let position = position_of(game, json)?;
    let roll = roll_of(game, request)?;
    let (_, mut agent) = agent_of(game, request, serving)?;
    let moves = game.legal_moves(&position, roll);
    if moves.is_empty() {
        return Ok(json!({ "move": null, "values": [] }));
    }
    let choice = agent.decide(game, &position, roll, &moves);
    let values = choice.values.map(|values| {
        moves
            .iter()
            .zip(values)
            .map(|(&mv, value)| {
                let mut entry = game.move_to_json(mv);
                entry["value"] = json!(value);
                entry
            })
            .collect::<Vec<_>>()
    });
    Ok(json!({ "move": game.move_to_json(choice.chosen), "values": values }))
}

fn evaluate<G: Codec + HasHeuristic + 'static>(
    game: &G,
    json: &sawah_engine::json::PositionJson,
    request: &Map<String, Value>,
    serving: &Serving<'_>,
) -> Reply {
    let position = position_of(game, json)?;
    let (spec, mut agent) = agent_of(game, request, serving)?;
    if let Some(value) = terminal_value(game, &position) {
        return Ok(json!({ "value": value }));
    }
    let value = agent.evaluate(game, &position).ok_or_else(|| {
        ProtocolError::new(
            "unsupported",
            format!("{spec} has no evaluation; use heuristic or expectiminimax"),
        )
    })?;
    Ok(json!({ "value": value }))
}

impl Bot {
    /// A server that knows the given rule sets.
    pub fn new(registry: Registry) -> Bot {
        Bot {
            registry,
            table: None,
            models: None,
        }
    }

    /// The solved table `"bot":"perfect"` plays from when the request names none.
    pub fn with_table(mut self, table: Option<String>) -> Bot {
        self.table = table;
        self
    }

    /// The shipped levels `"bot":"easy"|"medium"|"hard"` resolve through
    /// (rule sets the manifest does not list use the built-in presets).
    pub fn with_models(mut self, models: Option<sawah_agents::manifest::Models>) -> Bot {
        self.models = models;
        self
    }

    fn serving(&self) -> Serving<'_> {
        Serving {
            table: self.table.as_deref(),
            models: self.models.as_ref(),
        }
    }

    /// Answers one request line with one response line (no newline).
    pub fn handle_line(&self, line: &str) -> String {
        let (id, result) = match serde_json::from_str::<Value>(line) {
            Err(e) => (
                None,
                Err(ProtocolError::new(
                    "invalid_json",
                    format!("the line is not JSON: {e}"),
                )),
            ),
            Ok(Value::Object(request)) => (request.get("id").cloned(), self.handle(&request)),
            Ok(_) => (
                None,
                Err(ProtocolError::new(
                    "invalid_request",
                    "a request must be a JSON object such as {\"cmd\":\"legal_moves\",…}",
                )),
            ),
        };
        let mut response = Map::new();
        if let Some(id) = id {
            response.insert("id".to_string(), id);
        }
        match result {
            Ok(Value::Object(fields)) => response.extend(fields),
            Ok(other) => {
                response.insert("result".to_string(), other);
            }
            Err(error) => {
                response.insert(
                    "error".to_string(),
                    json!({ "kind": error.kind, "message": error.message }),
                );
            }
        }
        Value::Object(response).to_string()
    }

    fn handle(&self, request: &Map<String, Value>) -> Reply {
        match string_field(request, "cmd")? {
            "legal_moves" => {
                let (game, json) = self.position_json(request)?;
                with_game!(&game, g => legal_moves(g, &json, request))
            }
            "choose" => {
                let (game, json) = self.position_json(request)?;
                with_game!(&game, g => choose(g, &json, request, &self.serving()))
            }
            "evaluate" => {
                let (game, json) = self.position_json(request)?;
                with_game!(&game, g => evaluate(g, &json, request, &self.serving()))
            }
            "start" => {
                let game = self.rules(string_field(request, "rules")?)?;
                Ok(with_game!(&game, g => json!({ "position": g.position_to_json(&g.start()) })))
            }
            "rules" => {
                let game = self.rules(string_field(request, "rules")?)?;
                Ok(with_game!(&game, g => json!({ "rules": g.export_json() })))
            }
            "list_rules" => Ok(json!({ "rules": self.registry.names() })),
            "score" => self.score(request),
            "daily" => daily_throws(request),
            other => Err(ProtocolError::new(
                "unknown_command",
                format!(
                    "unknown command {other:?}; commands: {}",
                    COMMANDS.join(", ")
                ),
            )),
        }
    }

    fn rules(&self, name: &str) -> Result<AnyGame, ProtocolError> {
        self.registry
            .get(name)
            .map_err(|e| ProtocolError::new("unknown_rules", e.to_string()))
    }

    fn position_json(
        &self,
        request: &Map<String, Value>,
    ) -> Result<(AnyGame, sawah_engine::json::PositionJson), ProtocolError> {
        self.registry
            .parse_position(field(request, "position")?)
            .map_err(|e| ProtocolError::new(e.kind(), e.to_string()))
    }

    fn score(&self, request: &Map<String, Value>) -> Reply {
        let (game, json) = self.position_json(request)?;
        let AnyGame::Senet(senet) = &game else {
            return Err(ProtocolError::new(
                "unsupported",
                format!("score is defined for senet only, not {}", game.name()),
            ));
        };
        let position = position_of(&**senet, &json)?;
        let score = senet.score(&position).ok_or_else(|| {
            ProtocolError::new(
                "game_not_over",
                "the game is not over: score needs a finished position",
            )
        })?;
        Ok(json!({ "score": score }))
    }
}

fn daily_throws(request: &Map<String, Value>) -> Reply {
    if let Some(rules) = request.get("rules")
        && rules.as_str() != Some(sawah_engine::senet::NAME)
    {
        return Err(ProtocolError::new(
            "unsupported",
            format!("the daily game is defined for senet only, not {rules}"),
        ));
    }
    let date = string_field(request, "date")?;
    let count = match request.get("count") {
        None => 100,
        Some(value) => value
            .as_u64()
            .filter(|&n| n <= MAX_DAILY_COUNT)
            .ok_or_else(|| {
                ProtocolError::new(
                    "invalid_field",
                    format!("\"count\" is {value}; it must be a whole number from 0 to {MAX_DAILY_COUNT}"),
                )
            })?,
    };
    let throws = daily::daily_throws(date, count as usize)
        .map_err(|e| ProtocolError::new("invalid_field", format!("\"date\": {e}")))?;
    Ok(json!({ "date": date, "throws": throws }))
}

/// Reads requests until end of input, answering each line and flushing after each.
/// Lines that are not UTF-8 get an error response like any other bad line.
pub fn serve(bot: &Bot, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        let response = match std::str::from_utf8(line) {
            Ok(text) => bot.handle_line(text),
            Err(e) => json!({
                "error": { "kind": "invalid_json", "message": format!("the line is not UTF-8 text: {e}") }
            })
            .to_string(),
        };
        writeln!(output, "{response}")?;
        output.flush()?;
    }
    Ok(())
}
