//! The commands a request's `"cmd"` may name.

use crate::error::{ErrorKind, ProtocolError};

/// A protocol command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// Every legal move for a roll, with the position after each.
    LegalMoves,
    /// The move an agent plays, with every move's value.
    Choose,
    /// An agent's win probability for the side to move.
    Evaluate,
    /// A rule set's starting position.
    Start,
    /// Everything a front end needs to draw and play a rule set.
    Rules,
    /// The names of every known rule set.
    ListRules,
    /// Sawah's single-player score of a finished Senet game.
    Score,
    /// The throws of Senet's game of the day.
    Daily,
    /// A game reviewed move by move: losses, classes, luck, strength.
    Review,
    /// Every legal move for a roll, ranked, with what each does.
    Hint,
    /// Who answers: name, version and author (a harness asks it first).
    Hello,
    /// A puzzle from the shipped set: by id, of the day, or near a rating.
    Puzzle,
    /// A puzzle's answer checked and explained.
    SolvePuzzle,
}

impl Command {
    /// Every command, in the order `docs/protocol.md` lists them.
    pub const ALL: [Command; 13] = [
        Command::LegalMoves,
        Command::Choose,
        Command::Evaluate,
        Command::Start,
        Command::Rules,
        Command::ListRules,
        Command::Score,
        Command::Daily,
        Command::Review,
        Command::Hint,
        Command::Hello,
        Command::Puzzle,
        Command::SolvePuzzle,
    ];

    /// The name a request gives in `"cmd"`.
    pub fn name(self) -> &'static str {
        match self {
            Command::LegalMoves => "legal_moves",
            Command::Choose => "choose",
            Command::Evaluate => "evaluate",
            Command::Start => "start",
            Command::Rules => "rules",
            Command::ListRules => "list_rules",
            Command::Score => "score",
            Command::Daily => "daily",
            Command::Review => "review",
            Command::Hint => "hint",
            Command::Hello => "hello",
            Command::Puzzle => "puzzle",
            Command::SolvePuzzle => "solve_puzzle",
        }
    }

    /// The command called `name`, or an `unknown_command` error listing
    /// every command.
    pub fn from_name(name: &str) -> Result<Command, ProtocolError> {
        Command::ALL
            .into_iter()
            .find(|command| command.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Command::ALL.iter().map(|c| c.name()).collect();
                ProtocolError::new(
                    ErrorKind::UnknownCommand,
                    format!("unknown command {name:?}; commands: {}", names.join(", ")),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_found_by_its_name_and_listed_when_one_is_not() {
        for command in Command::ALL {
            assert_eq!(Command::from_name(command.name()), Ok(command));
        }
        let error = Command::from_name("fly").unwrap_err();
        assert_eq!(error.kind, ErrorKind::UnknownCommand);
        for command in Command::ALL {
            assert!(error.message.contains(command.name()), "{}", error.message);
        }
    }
}
