//! A request as it arrives, read by serde straight from its bytes, and a
//! position and a roll checked against their game: what the bot's reading
//! and its answers share.
//!
//! [`WireRequest`] is the one reader of a request's text (a `sawah bot`
//! line, an HTTP body or a member of a batch, a line from the browser or
//! Python). serde reads the object once: the `"id"`, echoed as it came, is
//! read as JSON (within serde's nesting limit, as before); every other
//! field the protocol knows is kept as the bytes it was written as
//! (`&RawValue`, no JSON tree), and fields it does not know are skipped. [`crate::Bot::parse`]
//! then turns those bytes into the typed [`crate::Request`], each field
//! straight into its type, in the fixed order the errors follow (the
//! command, the position, the roll, then the rest); only a field that does
//! not read as its type is looked at again, to word the error.
//!
//! The fields are named once, in the list `wire_request!` makes the
//! struct, serde's field names and the visitor from.
//!
//! Decided: as before this reader, a field given twice counts as given
//! once with its last value (what a JSON object of the last reader held;
//! docs/protocol.md promises it, so serde's derive, which refuses a field
//! given twice, is not the reader), and a line that is JSON but not an
//! object is `invalid_request`, a line that is not JSON `invalid_json`.

use crate::command::Command;
use crate::error::{ErrorKind, ProtocolError};
use sawah_engine::Codec;
use sawah_engine::json::PositionJson;
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;

/// The request fields the protocol knows, each named once: the struct
/// that holds them as written, the names serde's field reader tells apart
/// (escaped names included; a field is called what its Rust name is, or
/// the name after `=`), and the visitor that keeps each, are all made from
/// this one list. `id` is read as JSON (it is echoed as it came);
/// every other field is kept as its bytes.
macro_rules! wire_request {
    ($($(#[doc = $doc:literal])* $field:ident $(= $name:literal)?,)*) => {
        /// A request object as serde reads it from its text: each field the
        /// protocol knows, as written (`None` when absent; a JSON `null` is
        /// present), borrowed from the text.
        #[derive(Clone, Debug, Default)]
        pub struct WireRequest<'a> {
            /// `"id"`, echoed in the answer.
            pub id: Option<Value>,
            /// The command a route gives the request (`POST /v1/choose`),
            /// taking the place of any `"cmd"` it has.
            pub command: Option<Command>,
            $($(#[doc = $doc])* pub $field: Option<&'a RawValue>,)*
        }

        /// The names of the fields [`WireRequest`] keeps.
        #[derive(Deserialize)]
        #[serde(field_identifier)]
        #[allow(non_camel_case_types)]
        enum FieldName {
            id,
            $($(#[serde(rename = $name)])? $field,)*
            #[serde(other)]
            Other,
        }

        struct WireVisitor;

        impl<'de> Visitor<'de> for WireVisitor {
            type Value = WireRequest<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a request object")
            }

            fn visit_map<M: MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<WireRequest<'de>, M::Error> {
                let mut request = WireRequest::default();
                while let Some(name) = map.next_key::<FieldName>()? {
                    match name {
                        FieldName::id => request.id = Some(map.next_value::<Value>()?),
                        $(FieldName::$field => {
                            request.$field = Some(map.next_value::<&'de RawValue>()?);
                        })*
                        FieldName::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(request)
            }
        }
    };
}

wire_request! {
    /// `"cmd"`, the command.
    cmd,
    /// `"position"`.
    position,
    /// `"roll"`.
    roll,
    /// `"bot"`.
    bot,
    /// `"game"`.
    game,
    /// `"rules"`.
    rules,
    /// `"puzzle"`.
    puzzle,
    /// `"date"`.
    date,
    /// `"rating"`.
    rating,
    /// `"seed"`.
    seed,
    /// `"count"`.
    count,
    /// `"move"`.
    mv = "move",
}

impl<'a> WireRequest<'a> {
    /// Reads one request from its JSON text: `invalid_json` if the text is
    /// not JSON, `invalid_request` if it is JSON but not an object.
    pub fn read(text: &'a str) -> Result<WireRequest<'a>, ProtocolError> {
        let mut reader = serde_json::Deserializer::from_str(text);
        let read = reader
            .deserialize_map(WireVisitor)
            .and_then(|request| reader.end().map(|()| request));
        read.map_err(|error| {
            // A type error may come before a syntax error further on: the
            // whole text is checked to tell "not JSON" from "not an object".
            match serde_json::from_str::<IgnoredAny>(text) {
                Err(not_json) => not_json_error(&not_json),
                Ok(_) if error.is_data() => ProtocolError::new(
                    ErrorKind::InvalidRequest,
                    "a request must be a JSON object such as {\"cmd\":\"legal_moves\",…}",
                ),
                Ok(_) => not_json_error(&error),
            }
        })
    }

    /// The request with the command a route gives it.
    pub fn with_command(self, command: Command) -> WireRequest<'a> {
        WireRequest {
            command: Some(command),
            ..self
        }
    }

    /// The request's `"id"`, to echo.
    pub fn id(&self) -> Option<Value> {
        self.id.clone()
    }
}

fn not_json_error(error: &serde_json::Error) -> ProtocolError {
    ProtocolError::new(
        ErrorKind::InvalidJson,
        format!("the line is not JSON: {error}"),
    )
}

/// A field's bytes read as `T`, or, when they are not a `T`, the field as
/// JSON (for the error to show it as it was given).
pub(crate) fn typed<T: DeserializeOwned>(raw: &RawValue) -> Result<T, Value> {
    serde_json::from_str(raw.get()).map_err(|_| json_of(raw))
}

/// A field's bytes as JSON, for an error to show the field as given. They
/// were read as JSON once already, so only JSON nested past serde's limit
/// (which the reader skips over without recursion) does not read again:
/// it is shown as a text saying so, which no field takes as valid.
pub(crate) fn json_of(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or_else(|_| {
        Value::String(format!(
            "(JSON nested too deeply: {})",
            sawah_engine::text::printable(raw.get(), 40)
        ))
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_kept_as_written_and_unknown_ones_skipped() {
        let request = WireRequest::read(
            r#" {"id":[1, 2],"cmd":"choose","x":{"deep":[[[]]]},"roll":null,"move":{"from":1}} "#,
        )
        .unwrap();
        assert_eq!(request.id(), Some(serde_json::json!([1, 2])));
        assert_eq!(request.cmd.unwrap().get(), "\"choose\"");
        assert_eq!(request.roll.unwrap().get(), "null");
        assert_eq!(request.mv.unwrap().get(), r#"{"from":1}"#);
        assert!(request.position.is_none() && request.bot.is_none());
    }

    #[test]
    fn a_field_given_twice_keeps_its_last_value_and_escaped_names_are_read() {
        let request = WireRequest::read(r#"{"roll":1,"r\u006fll":2}"#).unwrap();
        assert_eq!(request.roll.unwrap().get(), "2");
    }

    #[test]
    fn not_json_and_not_an_object_are_told_apart() {
        for (text, kind) in [
            ("", ErrorKind::InvalidJson),
            ("not json", ErrorKind::InvalidJson),
            ("[1,2]", ErrorKind::InvalidRequest),
            ("\"cmd\"", ErrorKind::InvalidRequest),
            ("7", ErrorKind::InvalidRequest),
            ("[1,", ErrorKind::InvalidJson),
            ("{\"cmd\":\"hello\"} x", ErrorKind::InvalidJson),
            ("{\"cmd\":\"hello\",}", ErrorKind::InvalidJson),
            ("{\"cmd\":\"hello\"", ErrorKind::InvalidJson),
        ] {
            let error = WireRequest::read(text).unwrap_err();
            assert_eq!(error.kind, kind, "{text:?}: {}", error.message);
        }
        // An id nested past serde's limit is not JSON, as it was before;
        // in a field no command reads, such nesting is skipped unread.
        let deep = |field: &str| format!("{{\"{field}\":{}{}}}", "[".repeat(200), "]".repeat(200));
        let error = WireRequest::read(&deep("id")).unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidJson, "{}", error.message);
        assert!(
            error.message.contains("recursion limit"),
            "{}",
            error.message
        );
        assert!(WireRequest::read(&deep("extra")).is_ok());
        // The message of a syntax error is serde's, as it was before.
        let error = WireRequest::read("{\"cmd\":}").unwrap_err();
        let value = serde_json::from_str::<Value>("{\"cmd\":}").unwrap_err();
        assert_eq!(error.message, format!("the line is not JSON: {value}"));
    }
}
