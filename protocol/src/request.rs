//! Reading the fields of a request, with errors that name the field.

use crate::error::{ErrorKind, ProtocolError};
use sawah_engine::Codec;
use sawah_engine::json::PositionJson;
use serde_json::{Map, Value};

/// A request: a JSON object.
pub type Request = Map<String, Value>;

/// The field `name`, or a `missing_field` error.
pub fn field<'a>(request: &'a Request, name: &str) -> Result<&'a Value, ProtocolError> {
    request.get(name).ok_or_else(|| {
        ProtocolError::new(
            ErrorKind::MissingField,
            format!("the request has no \"{name}\" field"),
        )
    })
}

/// The string field `name`.
pub fn string_field<'a>(request: &'a Request, name: &str) -> Result<&'a str, ProtocolError> {
    field(request, name)?.as_str().ok_or_else(|| {
        ProtocolError::new(
            ErrorKind::InvalidField,
            format!("\"{name}\" must be a string"),
        )
    })
}

/// A position from the request, validated for its game.
pub fn position_of<G: Codec>(game: &G, json: &PositionJson) -> Result<G::Position, ProtocolError> {
    game.position_from_json(json).map_err(|e| {
        ProtocolError::new(ErrorKind::InvalidPosition, format!("invalid position: {e}"))
    })
}

/// The roll of a request, checked against the game's dice.
pub fn roll_of<G: Codec>(game: &G, request: &Request) -> Result<u8, ProtocolError> {
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
                ErrorKind::InvalidRoll,
                format!(
                    "roll {roll_value} is not a whole number from {min} to {max} for {}",
                    game.name()
                ),
            )
        })
}
