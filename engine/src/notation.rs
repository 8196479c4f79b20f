//! A one-line text notation for positions, for people.
//!
//! ```text
//! position := rules SP turn SP side SP side      (light's side, then dark's)
//! turn     := "light" | "dark" | "l" | "d"
//! side     := waiting "/" squares "/" scored     (race family)
//!           | squares "/" scored                 (Senet: no waiting pieces)
//! squares  := "-" | square ("," square)*         (the player's own numbering)
//! ```
//!
//! `SP` is one or more spaces or tabs. For example the JSON position
//! `{"rules":"sawah","turn":"light","light":{"waiting":3,"scored":1,"squares":[1,5,9]},"dark":{"waiting":7,"scored":0,"squares":[]}}`
//! is written `sawah light 3/1,5,9/1 7/-/0`. Formatting always writes full
//! turn names and ascending squares, so format ∘ parse is the identity on
//! formatted text.

use crate::json::{PositionJson, SideJson};
use crate::player::Player;
use thiserror::Error;

/// Why a line is not a position in notation.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NotationError {
    /// Wrong number of space-separated fields.
    #[error(
        "expected 4 fields \"RULES TURN LIGHT DARK\" (e.g. \"sawah light 3/1,5,9/1 7/-/0\"), found {0}"
    )]
    FieldCount(usize),
    /// The turn is not light or dark.
    #[error("turn {0:?} is not \"light\" or \"dark\"")]
    BadTurn(String),
    /// A side is not `waiting/squares/scored`.
    #[error(
        "{player}'s side {text:?} is not WAITING/SQUARES/SCORED (race, e.g. 3/1,5,9/1 or 7/-/0) or SQUARES/SCORED (Senet, e.g. 1,3,5,7,9/0)"
    )]
    BadSide {
        /// Whose side.
        player: Player,
        /// The text.
        text: String,
    },
    /// A number that does not parse.
    #[error("{player}'s {what} {text:?} is not a number from 0 to 255")]
    BadNumber {
        /// Whose side.
        player: Player,
        /// Which field.
        what: &'static str,
        /// The text.
        text: String,
    },
}

fn number(player: Player, what: &'static str, text: &str) -> Result<u8, NotationError> {
    text.parse().map_err(|_| NotationError::BadNumber {
        player,
        what,
        text: text.to_string(),
    })
}

fn parse_side(player: Player, text: &str) -> Result<SideJson, NotationError> {
    let parts: Vec<&str> = text.split('/').collect();
    let bad = || NotationError::BadSide {
        player,
        text: text.to_string(),
    };
    let (waiting, squares, scored) = match parts.as_slice() {
        [w, s, o] => (Some(number(player, "waiting count", w)?), *s, *o),
        [s, o] => (None, *s, *o),
        _ => return Err(bad()),
    };
    let squares = if squares == "-" {
        Vec::new()
    } else {
        squares
            .split(',')
            .map(|s| number(player, "square", s))
            .collect::<Result<_, _>>()?
    };
    Ok(SideJson {
        waiting,
        scored: number(player, "borne-off count", scored)?,
        squares,
    })
}

/// Parses a position in notation (not yet validated against its rule set).
///
/// # Examples
///
/// A position of ur in notation, its JSON form, and the rule set's checked
/// position; formatting gives the text back:
///
/// ```
/// use sawah_engine::{notation, race};
///
/// let json = notation::parse("ur light 5/4,8/0 6/-/1").unwrap();
/// assert_eq!(json.light.squares, [4, 8]);
/// assert_eq!(json.dark.scored, 1);
/// assert_eq!(notation::format(&json), "ur light 5/4,8/0 6/-/1");
///
/// let ur = race::preset("ur").unwrap();
/// let position = ur.position_from_json(&json).unwrap();
/// assert_eq!(ur.position_to_json(&position), json);
///
/// let error = notation::parse("ur light 5/4,8/0").unwrap_err();
/// assert!(error.to_string().contains("expected 4 fields"), "{error}");
/// ```
pub fn parse(text: &str) -> Result<PositionJson, NotationError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [rules, turn, light, dark] = fields.as_slice() else {
        return Err(NotationError::FieldCount(fields.len()));
    };
    let turn = Player::parse(turn).ok_or_else(|| NotationError::BadTurn(turn.to_string()))?;
    Ok(PositionJson {
        rules: rules.to_string(),
        turn,
        light: parse_side(Player::Light, light)?,
        dark: parse_side(Player::Dark, dark)?,
    })
}

fn format_side(side: &SideJson) -> String {
    let mut squares = side.squares.clone();
    squares.sort_unstable();
    let squares = if squares.is_empty() {
        "-".to_string()
    } else {
        squares
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    match side.waiting {
        Some(waiting) => format!("{waiting}/{squares}/{}", side.scored),
        None => format!("{squares}/{}", side.scored),
    }
}

/// Writes a position in notation.
pub fn format(position: &PositionJson) -> String {
    format!(
        "{} {} {} {}",
        position.rules,
        position.turn,
        format_side(&position.light),
        format_side(&position.dark)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_from_the_docs() {
        let parsed = parse("sawah light 3/1,5,9/1 7/-/0").unwrap();
        let json: PositionJson = serde_json::from_str(
            r#"{"rules":"sawah","turn":"light","light":{"waiting":3,"scored":1,"squares":[1,5,9]},"dark":{"waiting":7,"scored":0,"squares":[]}}"#,
        )
        .unwrap();
        assert_eq!(parsed, json);
        assert_eq!(format(&json), "sawah light 3/1,5,9/1 7/-/0");
    }

    #[test]
    fn senet_sides_have_no_waiting_count() {
        let parsed = parse("senet dark 1,3,5,7,9/0 2,4,6,8/1").unwrap();
        assert_eq!(parsed.light.waiting, None);
        assert_eq!(parsed.dark.squares, vec![2, 4, 6, 8]);
        assert_eq!(parsed.dark.scored, 1);
        assert_eq!(format(&parsed), "senet dark 1,3,5,7,9/0 2,4,6,8/1");
    }

    #[test]
    fn short_turn_and_extra_spaces() {
        let parsed = parse("  ur   d 7/-/0\t6/3/0 ").unwrap();
        assert_eq!(parsed.turn, Player::Dark);
        assert_eq!(parsed.dark.squares, vec![3]);
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(parse("sawah light"), Err(NotationError::FieldCount(2)));
        assert_eq!(
            parse("sawah blue 7/-/0 7/-/0"),
            Err(NotationError::BadTurn("blue".into()))
        );
        assert!(matches!(
            parse("sawah light 7/-/0 7/0/0/0"),
            Err(NotationError::BadSide {
                player: Player::Dark,
                ..
            })
        ));
        assert!(matches!(
            parse("sawah light 7/1,x/0 7/-/0"),
            Err(NotationError::BadNumber { what: "square", .. })
        ));
        assert!(matches!(
            parse("sawah light 7/-/999 7/-/0"),
            Err(NotationError::BadNumber { .. })
        ));
    }
}
