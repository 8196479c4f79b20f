//! A game as a file holds it: a game record, a line of a tournament's
//! results, or the `record` a review written as JSON carries. One typed
//! reader for `sawah review` and `sawah play`'s records: the moves the
//! engine replays (read by the engine's record reader, whose errors name
//! the turn at fault), who played, and who forfeited.

use sawah_agents::review::{Forfeit, Players};
use sawah_engine::record::Record;
use serde::{Deserialize, Deserializer, Serialize};

/// A game with its players, as a file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameFile {
    /// The rule set, start and moves.
    #[serde(flatten)]
    pub record: Record,
    /// Light's player, where the file names one (a results line's agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light: Option<String>,
    /// Dark's player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dark: Option<String>,
    /// The forfeit a results line records; one written in another form is
    /// not the review's business and is left out.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "forfeit_if_readable"
    )]
    pub failure: Option<Forfeit>,
}

impl GameFile {
    /// A game without players or forfeit.
    pub fn of(record: Record) -> GameFile {
        GameFile {
            record,
            light: None,
            dark: None,
            failure: None,
        }
    }

    /// Who played, when the file names both.
    pub fn players(&self) -> Option<Players> {
        Some(Players {
            light: self.light.clone()?,
            dark: self.dark.clone()?,
        })
    }

    /// The players' names, "light" and "dark" where the file names none.
    pub fn player_names(&self) -> [String; 2] {
        [
            self.light.clone().unwrap_or_else(|| "light".into()),
            self.dark.clone().unwrap_or_else(|| "dark".into()),
        ]
    }
}

/// A review written as JSON: the game it reviewed is its `record`.
#[derive(Deserialize)]
pub struct ReviewFile {
    /// The game.
    pub record: GameFile,
}

fn forfeit_if_readable<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Forfeit>, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_results_line_reads_with_its_players_and_forfeit() {
        let line = r#"{"rules":"ur","light":"hard","dark":"bot","pair":1,"seed":2,"winner":"light","length":2,
            "moves":["2:0-2","0:pass"],"failure":{"seat":"dark","kind":"time","message":"no answer"}}"#;
        let game: GameFile = serde_json::from_str(line).unwrap();
        assert_eq!(game.record.rules, "ur");
        assert_eq!(game.record.moves, ["2:0-2", "0:pass"]);
        assert_eq!(game.player_names(), ["hard", "bot"]);
        assert_eq!(game.failure.unwrap().kind.as_deref(), Some("time"));
        // A record with turns, no players: named by side; an old failure
        // form is left out, not an error.
        let game: GameFile = serde_json::from_str(
            r#"{"rules":"ur","turns":[{"roll":2,"move":{"from":0,"to":2}}],"failure":"crash"}"#,
        )
        .unwrap();
        assert_eq!(game.record.moves, ["2:0-2"]);
        assert_eq!(game.player_names(), ["light", "dark"]);
        assert!(game.players().is_none() && game.failure.is_none());
        // The engine's reader words what is wrong, naming the turn.
        let error = serde_json::from_str::<GameFile>(
            r#"{"rules":"ur","turns":[{"roll":2,"move":{"from":0,"to":2}},{"roll":"x"}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("turn 2"), "{error}");
    }

    #[test]
    fn a_game_writes_what_it_reads() {
        let line = r#"{"rules":"ur","start":"ur light 7/-/0 7/-/0","moves":["2:0-2"],"light":"you","dark":"hard"}"#;
        let game: GameFile = serde_json::from_str(line).unwrap();
        let written = serde_json::to_string(&game).unwrap();
        assert_eq!(serde_json::from_str::<GameFile>(&written).unwrap(), game);
        assert!(written.contains(r#""light":"you""#), "{written}");
    }
}
