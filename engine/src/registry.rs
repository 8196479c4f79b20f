//! Rule sets by name: the presets, Senet, and any loaded from files.

use crate::json::{JsonPositionError, PositionJson};
use crate::notation::{self, NotationError};
use crate::race::{self, RuleFileError, RuleSet};
use crate::senet::{self, Senet};
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// A rule set of either family. Code written once for any [`crate::Codec`]
/// game runs on it through [`with_game!`](crate::with_game).
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// A race rule set (Twenty Squares, the Royal Game of Ur, or a rule file).
    Race(Arc<RuleSet>),
    /// Senet.
    Senet(Arc<Senet>),
}

impl AnyGame {
    /// The rule set id.
    pub fn name(&self) -> &str {
        match self {
            AnyGame::Race(rules) => rules.name(),
            AnyGame::Senet(_) => senet::NAME,
        }
    }

    /// One line for people.
    pub fn description(&self) -> &str {
        match self {
            AnyGame::Race(rules) => &rules.spec().description,
            AnyGame::Senet(_) => {
                "Senet after Timothy Kendall, as played on Sawah: 30 houses, five pieces each"
            }
        }
    }
}

/// What the sides of `game`'s positions may hold.
fn side_limits(game: &AnyGame) -> crate::json::SideLimits {
    match game {
        AnyGame::Race(rules) => crate::json::SideLimits {
            pieces: rules.pieces(),
            squares: rules.route_len(),
            waiting: true,
        },
        AnyGame::Senet(_) => crate::json::SideLimits {
            pieces: senet::PIECES,
            squares: senet::HOUSES,
            waiting: false,
        },
    }
}

/// Runs `$body` with `$game` bound to the concrete game inside an
/// [`AnyGame`](crate::AnyGame) (`&RuleSet` or `&Senet`), so generic code is
/// written once for every family.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $game:ident => $body:expr) => {
        match $any {
            $crate::AnyGame::Race(rules) => {
                let $game: &$crate::race::RuleSet = &**rules;
                $body
            }
            $crate::AnyGame::Senet(senet) => {
                let $game: &$crate::senet::Senet = &**senet;
                $body
            }
        }
    };
}

/// No rule set has that name.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown rule set {name:?}; known rule sets: {}", known.join(", "))]
pub struct UnknownRules {
    /// The name asked for.
    pub name: String,
    /// Every name the registry knows.
    pub known: Vec<String>,
}

/// Why a rule set could not be found or loaded.
#[derive(Debug, Error)]
pub enum ResolveError {
    /// Not a known name (and not a file).
    #[error("{0}")]
    Unknown(#[from] UnknownRules),
    /// A rule file that could not be used.
    #[error("{0}")]
    File(#[from] RuleFileError),
    /// A file whose rule set reuses a preset's name.
    #[error("rule file {path} defines {name:?}, which is already a rule set; give it another name")]
    NameTaken {
        /// The file.
        path: String,
        /// The name.
        name: String,
    },
}

/// Why a position given from outside (JSON or notation) was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionInputError {
    /// Not a JSON position object of the right shape.
    #[error("malformed position: {0}")]
    Malformed(String),
    /// Not valid notation.
    #[error("malformed position notation: {0}")]
    Notation(#[from] NotationError),
    /// The rule set is unknown.
    #[error("{0}")]
    UnknownRules(#[from] UnknownRules),
    /// The pieces do not form a valid position.
    #[error("invalid position: {0}")]
    Invalid(#[from] JsonPositionError),
}

impl PositionInputError {
    /// A short machine-readable kind for protocol errors.
    pub fn kind(&self) -> &'static str {
        match self {
            PositionInputError::UnknownRules(_) => "unknown_rules",
            _ => "invalid_position",
        }
    }
}

/// The rule sets a process knows: every preset, Senet, plus rule files it loaded.
#[derive(Clone, Debug)]
pub struct Registry {
    games: Vec<AnyGame>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl Registry {
    /// The named race rule sets, Senet, RoyalUr's variants, then the tiny
    /// race presets.
    pub fn new() -> Registry {
        let race = |name| {
            AnyGame::Race(Arc::new(
                race::preset(name).expect("preset names are valid"),
            ))
        };
        let mut games: Vec<AnyGame> = race::NAMED_RULE_SETS.into_iter().map(race).collect();
        games.push(AnyGame::Senet(Arc::new(Senet::new())));
        games.extend(race::ROYALUR_RULE_SETS.into_iter().map(race));
        games.extend(race::TINY_RULE_SETS.into_iter().map(race));
        Registry { games }
    }

    /// Every known name.
    pub fn names(&self) -> Vec<String> {
        self.games.iter().map(|g| g.name().to_string()).collect()
    }

    /// Every known rule set.
    pub fn games(&self) -> &[AnyGame] {
        &self.games
    }

    /// The rule set with this name.
    ///
    /// # Examples
    ///
    /// Every rule set the project knows is found by name; an unknown name
    /// gets an error listing the known ones:
    ///
    /// ```
    /// use sawah_engine::Registry;
    ///
    /// let registry = Registry::new();
    /// assert!(registry.names().len() >= 19);
    /// let senet = registry.get("senet").unwrap();
    /// assert_eq!(senet.name(), "senet");
    ///
    /// let error = registry.get("chess").unwrap_err();
    /// assert!(error.to_string().contains("known rule sets: sawah, babylon"), "{error}");
    /// ```
    pub fn get(&self, name: &str) -> Result<AnyGame, UnknownRules> {
        self.games
            .iter()
            .find(|g| g.name() == name)
            .cloned()
            .ok_or_else(|| UnknownRules {
                name: name.to_string(),
                known: self.names(),
            })
    }

    /// Loads a rule file and makes its rule set known by its name.
    pub fn load_file(&mut self, path: &Path) -> Result<AnyGame, ResolveError> {
        let rules = RuleSet::from_file(path)?;
        self.add(rules, &path.display().to_string())
    }

    /// Makes a race rule set known by its name (read from `shown`, which
    /// errors name). A rule set already known by that name is kept when
    /// it is the same one (the same file loaded twice), and refused when
    /// it differs.
    pub fn add(&mut self, rules: RuleSet, shown: &str) -> Result<AnyGame, ResolveError> {
        if let Ok(known) = self.get(rules.name()) {
            if let AnyGame::Race(same) = &known
                && **same == rules
            {
                return Ok(known);
            }
            return Err(ResolveError::NameTaken {
                path: shown.to_string(),
                name: rules.name().to_string(),
            });
        }
        let game = AnyGame::Race(Arc::new(rules));
        self.games.push(game.clone());
        Ok(game)
    }

    /// A rule set by name, or, for an argument that names a file (contains a
    /// path separator or ends in `.toml`/`.json`), loaded from that file.
    pub fn resolve(&mut self, name_or_path: &str) -> Result<AnyGame, ResolveError> {
        let looks_like_file = name_or_path.contains(['/', '\\'])
            || name_or_path.ends_with(".toml")
            || name_or_path.ends_with(".json");
        if looks_like_file {
            let path = Path::new(name_or_path);
            let loaded = RuleSet::from_file(path)?;
            if let Ok(AnyGame::Race(known)) = self.get(loaded.name())
                && *known == loaded
            {
                return Ok(AnyGame::Race(known));
            }
            return self.load_file(path);
        }
        Ok(self.get(name_or_path)?)
    }

    /// A position from outside (a JSON object, or a string in notation),
    /// checked for shape and rule set but not yet for validity: pass it to
    /// the game's [`Codec::position_from_json`](crate::Codec::position_from_json).
    pub fn parse_position(
        &self,
        value: &serde_json::Value,
    ) -> Result<(AnyGame, PositionJson), PositionInputError> {
        let json: PositionJson = match value {
            serde_json::Value::String(text) => notation::parse(text)?,
            other => serde_json::from_value(other.clone()).map_err(|e| {
                // Said in plain words, with the rule set's own ranges when
                // it names a known one; serde's message only as a last resort.
                let limits = other
                    .get("rules")
                    .and_then(|r| r.as_str())
                    .and_then(|name| self.get(name).ok())
                    .map(|game| side_limits(&game));
                PositionInputError::Malformed(
                    crate::json::malformed_position(other, limits).unwrap_or_else(|| e.to_string()),
                )
            })?,
        };
        self.position_game(json)
    }

    /// A position already read into its JSON form, with the rule set it
    /// names (not yet checked for validity, as [`Registry::parse_position`]).
    pub fn position_game(
        &self,
        json: PositionJson,
    ) -> Result<(AnyGame, PositionJson), PositionInputError> {
        let game = self.get(&json.rules)?;
        Ok((game, json))
    }

    /// A position given on a command line: JSON if it starts with `{`, else notation.
    pub fn parse_position_text(
        &self,
        text: &str,
    ) -> Result<(AnyGame, PositionJson), PositionInputError> {
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') {
            let value: serde_json::Value = serde_json::from_str(trimmed)
                .map_err(|e| PositionInputError::Malformed(e.to_string()))?;
            self.parse_position(&value)
        } else {
            self.parse_position(&serde_json::Value::String(text.to_string()))
        }
    }
}
