//! Protocol errors: a machine-readable kind and a message for people.

use std::fmt;

/// What kind of request was refused (`"kind"` in an error response).
// Its serde name is `ErrorKind::as_str`'s (a test checks).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The line is not JSON (or not UTF-8).
    InvalidJson,
    /// The JSON is not an object.
    InvalidRequest,
    /// A required field is absent.
    MissingField,
    /// A field has the wrong type or value.
    InvalidField,
    /// `cmd` is not a command this server knows.
    UnknownCommand,
    /// The rule set is not known.
    UnknownRules,
    /// Malformed or invalid position.
    InvalidPosition,
    /// The roll is not a whole number in the rule set's range.
    InvalidRoll,
    /// `bot` is not a preset or a valid spec, or its files cannot be used.
    InvalidBot,
    /// `score` for a game that is not finished.
    GameNotOver,
    /// A command the rule set or agent does not have.
    Unsupported,
    /// The request is larger than the front door accepts.
    TooLarge,
    /// Answering would cost more than the front door's budget allows (its
    /// node budget or, as a last safety net, its clock): refused rather
    /// than answered with less.
    TooExpensive,
}

impl ErrorKind {
    /// Every kind, in the order `docs/protocol.md` lists them.
    pub const ALL: [ErrorKind; 13] = [
        ErrorKind::InvalidJson,
        ErrorKind::InvalidRequest,
        ErrorKind::MissingField,
        ErrorKind::InvalidField,
        ErrorKind::UnknownCommand,
        ErrorKind::UnknownRules,
        ErrorKind::InvalidPosition,
        ErrorKind::InvalidRoll,
        ErrorKind::InvalidBot,
        ErrorKind::GameNotOver,
        ErrorKind::Unsupported,
        ErrorKind::TooLarge,
        ErrorKind::TooExpensive,
    ];

    /// The name in responses (`invalid_position`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::MissingField => "missing_field",
            ErrorKind::InvalidField => "invalid_field",
            ErrorKind::UnknownCommand => "unknown_command",
            ErrorKind::UnknownRules => "unknown_rules",
            ErrorKind::InvalidPosition => "invalid_position",
            ErrorKind::InvalidRoll => "invalid_roll",
            ErrorKind::InvalidBot => "invalid_bot",
            ErrorKind::GameNotOver => "game_not_over",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::TooExpensive => "too_expensive",
        }
    }

    /// The kind called `name`, if any.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused request: its kind and what was wrong, naming the field or value
/// (the `"error"` object of a response, `{"kind":K,"message":M}`).
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct ProtocolError {
    /// The kind.
    pub kind: ErrorKind,
    /// What was wrong, for people.
    pub message: String,
}

impl ProtocolError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ProtocolError {
        ProtocolError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for ProtocolError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_kind_writes_as_its_name() {
        for kind in ErrorKind::ALL {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                Value::from(kind.as_str())
            );
        }
    }

    #[test]
    fn every_kind_round_trips_through_its_name() {
        let mut names = std::collections::HashSet::new();
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
            assert!(names.insert(kind.as_str()), "{kind} twice");
        }
        assert_eq!(ErrorKind::from_name("no_such_kind"), None);
    }
}
