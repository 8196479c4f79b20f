//! Positions and moves as JSON (DESIGN.md §3.1).

use crate::ByPlayer;
use crate::game::Game;
use crate::player::Player;
use crate::race::{Move, Position, PositionError, RuleSet, Setup, SideSetup};
use crate::senet::{self, Senet};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One side of a JSON position. `waiting` belongs to the race family only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SideJson {
    /// Pieces waiting to enter (race family).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<u8>,
    /// Pieces borne off.
    pub scored: u8,
    /// Occupied squares in the player's own numbering, ascending.
    pub squares: Vec<u8>,
}

/// A position as JSON: `{"rules":…,"turn":…,"light":{…},"dark":{…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionJson {
    /// The rule set id.
    pub rules: String,
    /// The side to move.
    pub turn: Player,
    /// Light's pieces.
    pub light: SideJson,
    /// Dark's pieces.
    pub dark: SideJson,
}

impl PositionJson {
    /// A side by player.
    pub fn side(&self, player: Player) -> &SideJson {
        match player {
            Player::Light => &self.light,
            Player::Dark => &self.dark,
        }
    }
}

/// A move as JSON: `{"from":F,"to":T}`. `from` 0 enters a waiting piece
/// (race family); `to` is `"off"` when the piece is borne off.
///
/// Other fields are ignored when a move is read, as they are in a request
/// or an answer object: a bot may answer with one of a `choose` request's
/// listed moves as it was given (`{"from":0,"to":2,"extra_roll":false,
/// "position":{…}}`), and only `from` and `to` name the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MoveJson {
    /// The square the piece leaves, in the mover's own numbering (0: off
    /// the board, waiting to enter).
    pub from: u8,
    /// Where it lands.
    pub to: MoveTarget,
}

/// Where a move lands: a square in the mover's numbering, or off the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum MoveTarget {
    /// A square.
    Square(u8),
    /// Borne off.
    Off(Off),
}

/// The move as the protocol writes it: `{"from":F,"to":T}`, `T` a number
/// or `"off"` (what messages quote).
impl std::fmt::Display for MoveJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to {
            MoveTarget::Square(to) => write!(f, "{{\"from\":{},\"to\":{to}}}", self.from),
            MoveTarget::Off(_) => write!(f, "{{\"from\":{},\"to\":\"off\"}}", self.from),
        }
    }
}

/// A square as its number, borne off as `off`: how a move list shows it.
impl std::fmt::Display for MoveTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveTarget::Square(square) => write!(f, "{square}"),
            MoveTarget::Off(_) => f.write_str("off"),
        }
    }
}

/// The word `"off"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Off {
    /// Borne off.
    #[serde(rename = "off")]
    Off,
}

impl MoveJson {
    /// The move from `from` to `to`, where `off` is the square number that
    /// means borne off.
    pub fn new(from: u8, to: u8, off: u8) -> MoveJson {
        let to = if to == off {
            MoveTarget::Off(Off::Off)
        } else {
            MoveTarget::Square(to)
        };
        MoveJson { from, to }
    }
}

impl From<MoveJson> for serde_json::Value {
    fn from(mv: MoveJson) -> serde_json::Value {
        serde_json::json!(mv)
    }
}

/// Why a JSON position is not a position of the rule set it was given to.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum JsonPositionError {
    /// The position names another rule set.
    #[error("the position is for rule set {found:?}, not {expected:?}")]
    RulesMismatch {
        /// The rule set in use.
        expected: String,
        /// The one the position names.
        found: String,
    },
    /// A race position without a waiting count.
    #[error("{0} has no \"waiting\" count; race positions need one")]
    MissingWaiting(Player),
    /// A Senet position with a waiting count.
    #[error("{0} has a \"waiting\" count, but Senet pieces start on the board; leave it out")]
    UnexpectedWaiting(Player),
    /// The pieces are not a valid race position.
    #[error("{0}")]
    Invalid(#[from] PositionError),
    /// The pieces are not a valid Senet position.
    #[error("{0}")]
    InvalidSenet(#[from] senet::PositionError),
}

/// The outside formats of a game: positions and moves as JSON, and the
/// description a front end needs. The protocol and the CLI are written
/// against this trait, so every family works the same way there.
pub trait Codec: Game {
    /// Validates a JSON position for this rule set.
    fn position_from_json(&self, json: &PositionJson) -> Result<Self::Position, JsonPositionError>;
    /// The JSON form of a position (squares ascending).
    fn position_to_json(&self, position: &Self::Position) -> PositionJson;
    /// The typed JSON form of a move ([`MoveJson`]).
    fn move_json(&self, mv: Self::Move) -> MoveJson;
    /// The JSON form of a move: `{"from":F,"to":T}`, `to` being `"off"` when bearing off.
    fn move_to_json(&self, mv: Self::Move) -> serde_json::Value {
        self.move_json(mv).into()
    }
    /// Everything a front end needs to draw and play the rule set, as JSON
    /// (the typed record is each family's `rules_export`).
    fn export_json(&self) -> serde_json::Value;

    /// [`Codec::export_json`] as compact JSON text, written from the typed
    /// export record (`crate::export`), so that its order and form do not
    /// depend on serde_json's features.
    fn export_text(&self) -> String;

    /// The identity of the rule set's full description: FNV-1a 64 of
    /// [`Codec::export_text`], in 16 hex digits. Files made for one rule
    /// set (results, models, tables) carry it, so two rule sets that share
    /// a name are never mixed up.
    fn rules_digest(&self) -> String {
        crate::digest::digest_of(&self.export_text())
    }
}

fn check_rules_name(expected: &str, json: &PositionJson) -> Result<(), JsonPositionError> {
    if json.rules != expected {
        return Err(JsonPositionError::RulesMismatch {
            expected: expected.to_string(),
            found: json.rules.clone(),
        });
    }
    Ok(())
}

impl Codec for RuleSet {
    fn position_from_json(&self, json: &PositionJson) -> Result<Position, JsonPositionError> {
        RuleSet::position_from_json(self, json)
    }
    fn position_to_json(&self, position: &Position) -> PositionJson {
        RuleSet::position_to_json(self, position)
    }
    fn move_json(&self, mv: Move) -> MoveJson {
        MoveJson::new(mv.from, mv.to, self.off())
    }
    fn export_json(&self) -> serde_json::Value {
        serde_json::to_value(self.export()).unwrap_or_default()
    }
    fn export_text(&self) -> String {
        crate::digest::canonical_text(&self.export())
    }
    fn rules_digest(&self) -> String {
        self.digest
            .get_or_init(|| crate::digest::digest_of(&self.export_text()))
            .clone()
    }
}

impl Codec for Senet {
    fn position_from_json(
        &self,
        json: &PositionJson,
    ) -> Result<senet::Position, JsonPositionError> {
        check_rules_name(senet::NAME, json)?;
        for player in Player::BOTH {
            if json.side(player).waiting.is_some() {
                return Err(JsonPositionError::UnexpectedWaiting(player));
            }
        }
        Ok(self.position(
            json.turn,
            ByPlayer {
                light: &json.light.squares,
                dark: &json.dark.squares,
            },
            ByPlayer {
                light: json.light.scored,
                dark: json.dark.scored,
            },
        )?)
    }

    fn position_to_json(&self, position: &senet::Position) -> PositionJson {
        let side = |player: Player| {
            let side = position.side(player);
            SideJson {
                waiting: None,
                scored: side.scored(),
                squares: side.squares().collect(),
            }
        };
        PositionJson {
            rules: senet::NAME.to_string(),
            turn: position.turn(),
            light: side(Player::Light),
            dark: side(Player::Dark),
        }
    }

    fn move_json(&self, mv: senet::Move) -> MoveJson {
        MoveJson::new(mv.from, mv.to, senet::OFF)
    }

    fn export_json(&self) -> serde_json::Value {
        serde_json::to_value(self.export()).unwrap_or_default()
    }

    fn export_text(&self) -> String {
        crate::digest::canonical_text(&self.export())
    }
    fn rules_digest(&self) -> String {
        // Senet has no parameters: one digest for every value.
        static DIGEST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        DIGEST
            .get_or_init(|| crate::digest::digest_of(&self.export_text()))
            .clone()
    }
}

impl RuleSet {
    /// The JSON form of a position (squares ascending).
    pub fn position_to_json(&self, position: &Position) -> PositionJson {
        let side = |player: Player| {
            let side = position.side(player);
            SideJson {
                waiting: Some(side.waiting()),
                scored: side.scored(),
                squares: side.squares().collect(),
            }
        };
        PositionJson {
            rules: self.name().to_string(),
            turn: position.turn(),
            light: side(Player::Light),
            dark: side(Player::Dark),
        }
    }

    /// Validates a JSON position for this rule set.
    pub fn position_from_json(&self, json: &PositionJson) -> Result<Position, JsonPositionError> {
        check_rules_name(self.name(), json)?;
        let mut sides = ByPlayer::<SideSetup>::default();
        for player in Player::BOTH {
            let given = json.side(player);
            sides[player] = SideSetup {
                waiting: given
                    .waiting
                    .ok_or(JsonPositionError::MissingWaiting(player))?,
                scored: given.scored,
                squares: given.squares.clone(),
            };
        }
        Ok(self.position(&Setup {
            turn: json.turn,
            sides,
        })?)
    }

    /// The JSON form of a move: `{"from":F,"to":T}`, `to` being `"off"` when bearing off.
    pub fn move_to_json(&self, mv: Move) -> serde_json::Value {
        MoveJson::new(mv.from, mv.to, self.off()).into()
    }
}

/// What a position's sides may hold: its pieces per side and its squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideLimits {
    /// Pieces per side.
    pub pieces: u8,
    /// Squares (or houses) on a side's route.
    pub squares: u8,
    /// Whether sides have a waiting count (the race family).
    pub waiting: bool,
}

/// Says in plain words what is wrong with a JSON position that does not
/// have the shape of [`PositionJson`]: which field, and what it must be
/// (with `limits`, the rule set's own ranges). None when the shape is right.
pub fn malformed_position(value: &serde_json::Value, limits: Option<SideLimits>) -> Option<String> {
    use serde_json::Value;
    const FIELDS: &str = "\"rules\", \"turn\", \"light\" and \"dark\"";
    let Value::Object(map) = value else {
        return Some(format!(
            "a position is notation text or an object with {FIELDS}"
        ));
    };
    if let Some(key) = map
        .keys()
        .find(|k| !["rules", "turn", "light", "dark"].contains(&k.as_str()))
    {
        return Some(format!("unknown field {key:?}; a position has {FIELDS}"));
    }
    for key in ["rules", "turn", "light", "dark"] {
        if !map.contains_key(key) {
            return Some(format!("missing {key:?}; a position has {FIELDS}"));
        }
    }
    // What was given, for the message: short JSON.
    let given = |v: &Value| {
        let mut text = v.to_string();
        if text.len() > 40 {
            let mut end = 37;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("...");
        }
        format!(", not {text}")
    };
    if !map["rules"].is_string() {
        return Some(format!(
            "\"rules\" must be a rule set's name{}",
            given(&map["rules"])
        ));
    }
    if !matches!(map["turn"].as_str(), Some("light" | "dark")) {
        return Some(format!(
            "\"turn\" must be \"light\" or \"dark\"{}",
            given(&map["turn"])
        ));
    }
    let count = |what: &str| match limits {
        Some(l) => format!("{what} must be a whole number from 0 to {}", l.pieces),
        None => format!("{what} must be a whole number from 0 to 255"),
    };
    for side in ["light", "dark"] {
        let side_fields = match limits {
            Some(SideLimits { waiting: false, .. }) => "\"scored\" and \"squares\"",
            _ => "\"waiting\", \"scored\" and \"squares\"",
        };
        let Value::Object(fields) = &map[side] else {
            return Some(format!(
                "{side:?} must be an object with {side_fields}{}",
                given(&map[side])
            ));
        };
        if let Some(key) = fields
            .keys()
            .find(|k| !["waiting", "scored", "squares"].contains(&k.as_str()))
        {
            return Some(format!(
                "unknown field {key:?} in {side:?}; a side has {side_fields}"
            ));
        }
        for key in ["scored", "squares"] {
            if !fields.contains_key(key) {
                return Some(format!(
                    "missing {key:?} in {side:?}; a side has {side_fields}"
                ));
            }
        }
        let whole = |v: &Value, most: u8| v.as_u64().is_some_and(|n| n <= u64::from(most));
        let most = limits.map_or(u8::MAX, |l| l.pieces);
        for key in ["waiting", "scored"] {
            if let Some(v) = fields.get(key)
                && !(v.is_null() && key == "waiting")
                && !whole(v, most)
            {
                return Some(count(&format!("\"{side}.{key}\"")) + &given(v));
            }
        }
        let last = limits.map_or(u8::MAX, |l| l.squares);
        let squares_ok = fields["squares"]
            .as_array()
            .is_some_and(|a| a.iter().all(|s| whole(s, last) && s.as_u64() != Some(0)));
        if !squares_ok {
            return Some(format!(
                "\"{side}.squares\" must be a list of square numbers from 1 to {last}{}",
                given(&fields["squares"])
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_shows_as_the_json_it_writes() {
        for to in [
            MoveTarget::Square(0),
            MoveTarget::Square(14),
            MoveTarget::Off(Off::Off),
        ] {
            for from in [0, 3, 255] {
                let mv = MoveJson { from, to };
                assert_eq!(mv.to_string(), serde_json::to_string(&mv).unwrap());
            }
        }
        assert_eq!(MoveTarget::Off(Off::Off).to_string(), "off");
        assert_eq!(MoveTarget::Square(7).to_string(), "7");
    }
}
