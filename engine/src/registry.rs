//! Rule sets by name: the presets plus any loaded from files.

use crate::json::{JsonPositionError, PositionJson};
use crate::notation::{self, NotationError};
use crate::race::{self, Position, RuleFileError, RuleSet};
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

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

/// The rule sets a process knows: every preset, plus rule files it loaded.
#[derive(Clone, Debug)]
pub struct Registry {
    rule_sets: Vec<Arc<RuleSet>>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl Registry {
    /// The presets (named and tiny).
    pub fn new() -> Registry {
        Registry {
            rule_sets: race::all_preset_names()
                .filter_map(race::preset)
                .map(Arc::new)
                .collect(),
        }
    }

    /// Every known name, presets first.
    pub fn names(&self) -> Vec<String> {
        self.rule_sets
            .iter()
            .map(|r| r.name().to_string())
            .collect()
    }

    /// The rule set with this name.
    pub fn get(&self, name: &str) -> Result<Arc<RuleSet>, UnknownRules> {
        self.rule_sets
            .iter()
            .find(|r| r.name() == name)
            .cloned()
            .ok_or_else(|| UnknownRules {
                name: name.to_string(),
                known: self.names(),
            })
    }

    /// Loads a rule file and makes its rule set known by its name.
    pub fn load_file(&mut self, path: &Path) -> Result<Arc<RuleSet>, ResolveError> {
        let rules = RuleSet::from_file(path)?;
        if self.get(rules.name()).is_ok() {
            return Err(ResolveError::NameTaken {
                path: path.display().to_string(),
                name: rules.name().to_string(),
            });
        }
        let rules = Arc::new(rules);
        self.rule_sets.push(rules.clone());
        Ok(rules)
    }

    /// A rule set by name, or, for an argument that names a file (contains a
    /// path separator or ends in `.toml`/`.json`), loaded from that file.
    pub fn resolve(&mut self, name_or_path: &str) -> Result<Arc<RuleSet>, ResolveError> {
        let looks_like_file = name_or_path.contains(['/', '\\'])
            || name_or_path.ends_with(".toml")
            || name_or_path.ends_with(".json");
        if looks_like_file {
            let path = Path::new(name_or_path);
            let loaded = RuleSet::from_file(path)?;
            if let Ok(known) = self.get(loaded.name())
                && *known == loaded
            {
                return Ok(known);
            }
            return self.load_file(path);
        }
        Ok(self.get(name_or_path)?)
    }

    /// A position from outside: a JSON object, or a string in notation.
    pub fn parse_position(
        &self,
        value: &serde_json::Value,
    ) -> Result<(Arc<RuleSet>, Position), PositionInputError> {
        let json: PositionJson = match value {
            serde_json::Value::String(text) => notation::parse(text)?,
            other => serde_json::from_value(other.clone())
                .map_err(|e| PositionInputError::Malformed(e.to_string()))?,
        };
        let rules = self.get(&json.rules)?;
        let position = rules.position_from_json(&json)?;
        Ok((rules, position))
    }

    /// A position given on a command line: JSON if it starts with `{`, else notation.
    pub fn parse_position_text(
        &self,
        text: &str,
    ) -> Result<(Arc<RuleSet>, Position), PositionInputError> {
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
