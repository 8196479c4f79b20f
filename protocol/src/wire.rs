//! What a request is before it is read, and a position checked against
//! its game: the two things the bot's parsing and its answers share.

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
