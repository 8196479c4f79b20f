//! What a request is before it is read, and a position and a roll checked
//! against their game: what the bot's parsing and its answers share.

use crate::error::{ErrorKind, ProtocolError};
use sawah_engine::Codec;
use sawah_engine::json::PositionJson;
use serde_json::{Map, Value};

/// A request as it arrives: a JSON object.
pub type RequestObject = Map<String, Value>;

/// A position from the request, validated for its game.
pub(crate) fn position_of<G: Codec>(
    game: &G,
    json: &PositionJson,
) -> Result<G::Position, ProtocolError> {
    game.position_from_json(json).map_err(|e| {
        ProtocolError::new(ErrorKind::InvalidPosition, format!("invalid position: {e}"))
    })
}

/// The error for a roll, `shown` as the request wrote it, that the game's
/// dice cannot throw.
pub(crate) fn bad_roll<G: Codec>(game: &G, shown: impl std::fmt::Display) -> ProtocolError {
    let (min, max) = roll_range(game);
    ProtocolError::new(
        ErrorKind::InvalidRoll,
        format!(
            "roll {shown} is not a whole number from {min} to {max} for {}",
            game.name()
        ),
    )
}

/// `roll`, checked against the game's dice: what every answer that takes
/// a roll checks first, typed requests from callers in process included.
pub(crate) fn checked_roll<G: Codec>(game: &G, roll: u8) -> Result<u8, ProtocolError> {
    let (min, max) = roll_range(game);
    if (min..=max).contains(&roll) {
        Ok(roll)
    } else {
        Err(bad_roll(game, roll))
    }
}

/// The least and the greatest roll of the game's dice.
fn roll_range<G: Codec>(game: &G) -> (u8, u8) {
    let dice = game.dice();
    let min = dice.outcomes().map(|(roll, _)| roll).min().unwrap_or(0);
    (min, dice.max_roll())
}
