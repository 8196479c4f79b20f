//! Recorded games: a move as a short token, a game record as JSON, and a
//! record replayed through the rules.
//!
//! A move is written as a token, `ROLL:FROM-TO` (`3:0-3`, `2:13-off`), or
//! `ROLL:pass` when the roll had no legal move. `FROM` and `TO` are the
//! squares of the move's JSON form (DESIGN §3), so the tokens read the same
//! for every rule set and replay through the engine. Tournament results
//! files write their games this way.
//!
//! A game record (docs/protocol.md, "Game records") is
//! `{"rules":R,"turns":[{"roll":2,"move":{"from":0,"to":2}},{"roll":0,"move":"pass"},…]}`
//! or, with the moves as tokens, `{"rules":R,"moves":["2:0-2","0:pass",…]}`
//! (so a line of a `results.jsonl` is a record), with an optional `"start"`
//! position (JSON or notation) the game was played from.

use crate::game::Game;
use crate::json::{Codec, PositionJson};
use serde_json::Value;

fn square_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
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
    visit: impl FnMut(ReplayStep<'_, G>),
) -> Result<G::Position, ReplayError> {
    replay_from(game, game.start(), tokens, visit)
}

/// [`replay`] from the position `start`.
pub fn replay_from<G: Game + Codec>(
    game: &G,
    start: G::Position,
    tokens: &[String],
    mut visit: impl FnMut(ReplayStep<'_, G>),
) -> Result<G::Position, ReplayError> {
    let mut position = start;
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
        if game.dice().probability(roll) == 0.0 {
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

/// A game record read from JSON: the rule set's name, the start position
/// as given (if any) and the moves as tokens. Whether the moves replay is
/// checked when they are replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The rule set's name.
    pub rules: String,
    /// The position the game started from, as given (JSON or notation);
    /// `None`: the rule set's start.
    pub start: Option<Value>,
    /// The moves, as tokens.
    pub moves: Vec<String>,
}

/// Why a game record could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Not a JSON object with `rules` and `moves` or `turns`.
    #[error("{0}")]
    Shape(String),
    /// A turn that is not `{"roll":R,"move":{"from":F,"to":T}}` or `{"roll":R,"move":"pass"}`.
    #[error("turn {turn}: {message}")]
    Turn {
        /// The turn's number, from 1.
        turn: usize,
        /// What was wrong.
        message: String,
    },
    /// The start position is not a position of the record's rule set.
    #[error("\"start\": {0}")]
    Start(String),
}

/// A record is written as `{"rules", "start" (when given), "moves"}`.
impl serde::Serialize for Record {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("rules", &self.rules)?;
        if let Some(start) = &self.start {
            map.serialize_entry("start", start)?;
        }
        map.serialize_entry("moves", &self.moves)?;
        map.end()
    }
}

/// A record is read by [`Record::from_json`], so its errors name the turn
/// at fault (`turn 3: …`) as they do everywhere records are read.
impl<'de> serde::Deserialize<'de> for Record {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Record, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Record::from_json(&value).map_err(serde::de::Error::custom)
    }
}

impl Record {
    /// Reads a record (see the module's documentation).
    pub fn from_json(value: &Value) -> Result<Record, RecordError> {
        let shape = |m: &str| RecordError::Shape(m.to_string());
        let Value::Object(map) = value else {
            return Err(shape(
                "a game record is an object with \"rules\" and \"turns\" (or \"moves\")",
            ));
        };
        let rules = map
            .get("rules")
            .and_then(Value::as_str)
            .ok_or_else(|| shape("a game record needs \"rules\", the rule set's name"))?
            .to_string();
        let start = map.get("start").filter(|v| !v.is_null()).cloned();
        let moves = match (map.get("moves"), map.get("turns")) {
            (Some(moves), _) => moves
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .map(|t| t.as_str().map(String::from))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| {
                    shape("\"moves\" must be a list of moves such as \"2:0-2\" or \"0:pass\"")
                })?,
            (None, Some(Value::Array(turns))) => turns
                .iter()
                .enumerate()
                .map(|(k, turn)| turn_token(k + 1, turn))
                .collect::<Result<Vec<_>, _>>()?,
            (None, _) => {
                return Err(shape(
                    "a game record needs \"turns\" (or \"moves\"), a list",
                ));
            }
        };
        Ok(Record {
            rules,
            start,
            moves,
        })
    }

    /// The position the game started from, for `game` (the record's rule
    /// set): the given start, checked, or the rule set's start.
    pub fn start_position<G: Codec>(&self, game: &G) -> Result<G::Position, RecordError> {
        let Some(value) = &self.start else {
            return Ok(game.start());
        };
        let bad = |m: String| RecordError::Start(m);
        let json: PositionJson = match value {
            Value::String(text) => crate::notation::parse(text).map_err(|e| bad(e.to_string()))?,
            other => serde_json::from_value(other.clone()).map_err(|e| {
                bad(crate::json::malformed_position(other, None).unwrap_or_else(|| e.to_string()))
            })?,
        };
        if json.rules != self.rules {
            return Err(bad(format!(
                "the position is for rule set {:?}, but the record's rules are {:?}",
                json.rules, self.rules
            )));
        }
        game.position_from_json(&json)
            .map_err(|e| bad(e.to_string()))
    }
}

/// The token of turn `turn` (from 1) of a record's `"turns"`.
fn turn_token(turn: usize, value: &Value) -> Result<String, RecordError> {
    let bad = |message: &str| RecordError::Turn {
        turn,
        message: message.to_string(),
    };
    let square = |v: &Value| match v {
        Value::Number(n) => n.as_u64().filter(|&n| n <= 255).map(|n| n.to_string()),
        Value::String(s) if s == "off" => Some("off".to_string()),
        _ => None,
    };
    let roll = value
        .get("roll")
        .and_then(Value::as_u64)
        .filter(|&r| r <= 255)
        .ok_or_else(|| bad("\"roll\" must be a whole number"))?;
    match value.get("move") {
        Some(Value::String(s)) if s == "pass" => Ok(format!("{roll}:pass")),
        Some(Value::Object(mv)) => {
            let from = mv.get("from").and_then(square);
            let to = mv.get("to").and_then(square);
            match (from, to) {
                (Some(from), Some(to)) => Ok(format!("{roll}:{from}-{to}")),
                _ => Err(bad(
                    "a move is {\"from\":F,\"to\":T} (T a square or \"off\")",
                )),
            }
        }
        _ => Err(bad("\"move\" must be {\"from\":F,\"to\":T} or \"pass\"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race;
    use serde_json::json;

    fn tokens(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn bad_tokens_are_named() {
        let rules = race::preset("ur").unwrap();
        for (list, expected) in [
            (vec!["x"], "ROLL:FROM-TO"),
            (vec!["q:pass"], "not a number"),
            (vec!["9:pass"], "no such roll"),
            (vec!["2:5-7"], "not a legal move"),
            (vec!["0:pass", "2:pass"], "a pass although"),
        ] {
            let list = tokens(&list);
            let err = replay(&rules, &list, |_| {}).unwrap_err();
            assert!(err.to_string().contains(expected), "{list:?}: {err}");
            assert_eq!(err.number, list.len(), "the last move is the bad one");
        }
    }

    #[test]
    fn a_roll_the_dice_never_show_is_refused() {
        // Senet's throws are 1 to 5: 0 is not one of them.
        let senet = crate::senet::Senet::new();
        let err = replay(&senet, &tokens(&["0:pass"]), |_| {}).unwrap_err();
        assert_eq!(err.problem, ReplayProblem::NoSuchRoll);
    }

    #[test]
    fn turns_and_tokens_read_alike_and_bad_turns_are_named() {
        let a = Record::from_json(&json!({"rules":"ur","turns":[
            {"roll":2,"move":{"from":0,"to":2}},{"roll":0,"move":"pass"},{"roll":4,"move":{"from":11,"to":"off"}}]}))
        .unwrap();
        let b = Record::from_json(
            &json!({"rules":"ur","moves":["2:0-2","0:pass","4:11-off"],"seed":3}),
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.moves, tokens(&["2:0-2", "0:pass", "4:11-off"]));
        for (record, expected) in [
            (json!([1]), "an object"),
            (json!({"turns":[]}), "\"rules\""),
            (json!({"rules":"ur"}), "\"turns\""),
            (json!({"rules":"ur","moves":[1]}), "\"moves\" must be"),
            (
                json!({"rules":"ur","turns":[{"roll":2,"move":{"from":0,"to":2}},{"roll":"x"}]}),
                "turn 2: \"roll\"",
            ),
            (
                json!({"rules":"ur","turns":[{"roll":2,"move":{"from":0}}]}),
                "turn 1: a move is",
            ),
            (
                json!({"rules":"ur","turns":[{"roll":2}]}),
                "turn 1: \"move\"",
            ),
        ] {
            let err = Record::from_json(&record).unwrap_err().to_string();
            assert!(err.contains(expected), "{record}: {err}");
        }
    }

    #[test]
    fn a_start_position_is_read_as_json_or_notation_and_checked() {
        let rules = race::preset("ur").unwrap();
        let start = rules.start();
        let json_start = serde_json::to_value(rules.position_to_json(&start)).unwrap();
        let text = crate::notation::format(&rules.position_to_json(&start));
        for given in [json_start, Value::String(text)] {
            let record =
                Record::from_json(&json!({"rules":"ur","start":given,"moves":[]})).unwrap();
            assert_eq!(record.start_position(&rules).unwrap(), start);
        }
        let senet = crate::senet::Senet::new();
        let other = serde_json::to_value(senet.position_to_json(&senet.start())).unwrap();
        let record = Record::from_json(&json!({"rules":"ur","start":other,"moves":[]})).unwrap();
        let err = record.start_position(&rules).unwrap_err().to_string();
        assert!(err.contains("\"start\"") && err.contains("senet"), "{err}");
        let record =
            Record::from_json(&json!({"rules":"ur","start":{"rules":"ur"},"moves":[]})).unwrap();
        let err = record.start_position(&rules).unwrap_err().to_string();
        assert!(err.contains("missing \"turn\""), "{err}");
    }
}
