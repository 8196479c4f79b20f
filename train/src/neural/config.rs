//! Training settings: read from TOML or JSON, overridden from the command
//! line (`--set key=value`), and saved, resolved, in the run folder.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// Where the targets come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// TD(λ) returns of self-play games.
    SelfPlay,
    /// Exact values from a solved table, on positions from self-play games.
    Distill,
    /// Expectimax values from the network being trained, `search_depth`
    /// rolls deep, exact at finished positions and where `endgame` knows
    /// them, on positions from self-play games: every target averages
    /// over every roll instead of following one game's dice, and values
    /// known exactly flow back through it (expert iteration without a
    /// table; see docs/training.md).
    Search,
}

/// The evaluations' opponents unless `eval_opponents` says otherwise.
pub const DEFAULT_OPPONENTS: [&str; 3] = ["random", "heuristic", "expectiminimax:depth=1"];

/// Every training setting, with defaults for a small, fast network.
///
/// # Examples
///
/// The defaults with two settings overridden as `sawah train --set`
/// gives them (values in TOML syntax); an unknown setting is refused by
/// name, with the known ones listed.
///
/// ```
/// use sawah_train::neural::{Mode, TrainConfig};
///
/// let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// let config = TrainConfig::default()
///     .with_overrides(&set(&["games=5000", "hidden=[64, 32]", "mode=\"search\""]))
///     .unwrap();
/// assert_eq!((config.games, config.hidden.clone(), config.mode), (5000, vec![64, 32], Mode::Search));
/// config.validate().unwrap();
///
/// let error = TrainConfig::default().with_overrides(&set(&["gamez=1"])).unwrap_err();
/// assert!(error.to_string().contains("gamez"), "{error}");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// `self-play`, `distill` or `search`.
    pub mode: Mode,
    /// Hidden layer widths (the input and the one output are added).
    pub hidden: Vec<usize>,
    /// Stop after this many minutes of training (0: no time limit).
    pub minutes: f64,
    /// Stop after this many self-play games (0: no game limit).
    pub games: u64,
    /// Games played (in parallel) per round; the learner trains on a
    /// round's positions while the next round is played.
    pub games_per_round: u64,
    /// λ of the TD(λ) returns.
    pub lambda: f64,
    /// Probability of a random move in self-play (exploration).
    pub exploration: f64,
    /// Adam's learning rate at the start.
    pub learning_rate: f64,
    /// The learning rate at the end of the budget (games or minutes,
    /// whichever runs out first); in between it falls geometrically. Empty:
    /// constant.
    pub learning_rate_end: Option<f64>,
    /// Positions per gradient step.
    pub batch: usize,
    /// Step size for the hand-made evaluation's weights, learned from the
    /// same targets by mini-batch gradient descent (0: not learned).
    pub heuristic_learning_rate: f64,
    /// The seed of everything (weights, dice, exploration, shuffling).
    pub seed: u64,
    /// A solved table: the teacher in `distill` mode, and in both modes the
    /// measure of play against perfect.
    pub table: Option<String>,
    /// Exact values of the late positions: a Senet endgame table (`sawah
    /// solve --rules senet --pieces K`) or a race rule set's partial table
    /// (`sawah solve --partial`). Moves are chosen by it where it applies,
    /// and a position it covers has its exact value as target (and as the
    /// value λ-returns and searches take there).
    pub endgame: Option<String>,
    /// With `endgame`: a self-play game stops at the first position the
    /// table covers (for a network that plays beside the table, never
    /// asked about those positions); off, games play on and the network
    /// learns the covered positions from their exact values too.
    pub endgame_stops: bool,
    /// Search mode: rolls searched for each target (1: the expectation
    /// over the next roll of the best move's value; 2: one more roll).
    pub search_depth: u8,
    /// Distill and search modes: at every roll whose legal moves the
    /// teacher (the table, or the search) values at least this far apart
    /// for the mover (best minus worst, as a probability), the positions
    /// all of them reach are trained on too,
    /// not only the one played, so the network learns to rank the moves
    /// where the choice matters. Empty: only the positions played.
    pub choice_margin: Option<f64>,
    /// A model file to start from (same rule set, encoder and layer
    /// widths) instead of random weights: a new run that goes on training
    /// a finished network. The optimizer starts afresh.
    pub init: Option<String>,
    /// Lets `init` name a model trained for another rule set with the same
    /// encoder and input size (a related variant, e.g. `masters` for
    /// `masters-3dice`): transfer, recorded as such in the run's record.
    /// Off, a model of another rule set is refused.
    pub init_from_other_rules: bool,
    /// The input encoding of the network (`senet-features-v1`); empty: the
    /// rule set's default (`race-onehot-v1`, `senet-onehot-v1`).
    pub encoder: Option<String>,
    /// The fixed opponents every evaluation plays (agent specs); with a
    /// table, perfect play is added.
    pub eval_opponents: Vec<String>,
    /// Games between evaluations (0: only at the end).
    pub eval_every: u64,
    /// Games per opponent at each evaluation (paired dice).
    pub eval_games: u64,
    /// Minutes between checkpoints.
    pub checkpoint_minutes: f64,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            mode: Mode::SelfPlay,
            hidden: vec![64],
            minutes: 60.0,
            games: 0,
            games_per_round: 200,
            lambda: 0.7,
            exploration: 0.02,
            learning_rate: 1e-3,
            learning_rate_end: None,
            batch: 128,
            heuristic_learning_rate: 0.05,
            seed: 1,
            table: None,
            endgame: None,
            endgame_stops: false,
            search_depth: 1,
            choice_margin: None,
            init: None,
            init_from_other_rules: false,
            encoder: None,
            eval_opponents: DEFAULT_OPPONENTS.iter().map(|s| s.to_string()).collect(),
            eval_every: 20_000,
            eval_games: 400,
            checkpoint_minutes: 5.0,
        }
    }
}

impl TrainConfig {
    /// Reads a TOML (`.toml`) or JSON file; unknown keys are refused by name.
    pub fn from_file(path: &Path) -> Result<TrainConfig, ConfigError> {
        let file_error = |message: String| ConfigError::File {
            path: path.display().to_string(),
            message,
        };
        // A configuration is a few hundred bytes: 1 MiB is the rule files' cap.
        let bytes = sawah_engine::files::read_bounded(path, 1 << 20)
            .map_err(|e| file_error(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| file_error(format!("not UTF-8: {e}")))?;
        if path.extension().is_some_and(|e| e == "toml") {
            toml::from_str(&text).map_err(|e| file_error(e.to_string()))
        } else {
            serde_json::from_str(&text).map_err(|e| file_error(e.to_string()))
        }
    }

    /// Applies `key=value` overrides (values in TOML syntax: `hidden=[64,32]`,
    /// `mode="distill"`, `lambda=0.8`; bare words are taken as strings).
    pub fn with_overrides(&self, overrides: &[String]) -> Result<TrainConfig, ConfigError> {
        let mut value =
            serde_json::to_value(self).map_err(|e| ConfigError::BadValue(e.to_string()))?;
        for item in overrides {
            let (key, raw) = item
                .split_once('=')
                .ok_or_else(|| ConfigError::NotKeyValue { item: item.clone() })?;
            let key = key.trim();
            let Some(slot) = value.get_mut(key) else {
                return Err(ConfigError::UnknownSetting {
                    key: key.to_string(),
                    known: setting_names().join(", "),
                });
            };
            let parsed: toml::Value = toml::from_str(&format!("v = {}", raw.trim()))
                .map(|t: toml::Table| {
                    t.get("v")
                        .cloned()
                        .unwrap_or(toml::Value::String(raw.into()))
                })
                .unwrap_or_else(|_| toml::Value::String(raw.trim().to_string()));
            *slot =
                serde_json::to_value(parsed).map_err(|e| ConfigError::BadValue(e.to_string()))?;
            // Checked one at a time, so that the error names the setting.
            if serde_json::from_value::<TrainConfig>(value.clone()).is_err() {
                return Err(ConfigError::BadSetting {
                    key: key.to_string(),
                    value: raw.trim().to_string(),
                    allowed: allowed_values(key),
                });
            }
        }
        let config: TrainConfig =
            serde_json::from_value(value).map_err(|e| ConfigError::BadValue(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// The learning rate when `progress` (0 to 1) of the budget is spent.
    pub fn learning_rate_at(&self, progress: f64) -> f64 {
        match self.learning_rate_end {
            Some(end) => {
                self.learning_rate * (end / self.learning_rate).powf(progress.clamp(0.0, 1.0))
            }
            None => self.learning_rate,
        }
    }

    /// How much of the budget `games` games and `seconds` seconds are.
    pub fn progress(&self, games: u64, seconds: f64) -> f64 {
        let by_games = if self.games > 0 {
            games as f64 / self.games as f64
        } else {
            0.0
        };
        let by_time = if self.minutes > 0.0 {
            seconds / (self.minutes * 60.0)
        } else {
            0.0
        };
        by_games.max(by_time).min(1.0)
    }

    /// Checks every setting, naming the first one out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let check = |ok: bool, what: &'static str| {
            if ok {
                Ok(())
            } else {
                Err(ConfigError::OutOfRange(what))
            }
        };
        check(
            !self.hidden.is_empty() && self.hidden.iter().all(|&w| (1..=1024).contains(&w)),
            "hidden: one or more layer widths from 1 to 1024",
        )?;
        check(
            self.minutes.is_finite() && self.minutes >= 0.0,
            "minutes: 0 or more",
        )?;
        check(
            self.minutes > 0.0 || self.games > 0,
            "set minutes or games (or both) so training ends",
        )?;
        check(
            (1..=100_000).contains(&self.games_per_round),
            "games_per_round: 1 to 100000",
        )?;
        check((0.0..=1.0).contains(&self.lambda), "lambda: 0 to 1")?;
        check(
            (0.0..=1.0).contains(&self.exploration),
            "exploration: 0 to 1",
        )?;
        check(
            self.learning_rate.is_finite() && self.learning_rate > 0.0 && self.learning_rate < 1.0,
            "learning_rate: between 0 and 1",
        )?;
        check(
            self.learning_rate_end
                .is_none_or(|l| l.is_finite() && l > 0.0 && l < 1.0),
            "learning_rate_end: between 0 and 1",
        )?;
        check((1..=65_536).contains(&self.batch), "batch: 1 to 65536")?;
        check(
            self.heuristic_learning_rate.is_finite()
                && (0.0..=10.0).contains(&self.heuristic_learning_rate),
            "heuristic_learning_rate: 0 to 10",
        )?;
        check(self.eval_games <= 1_000_000, "eval_games: at most 1000000")?;
        check(
            self.checkpoint_minutes.is_finite() && self.checkpoint_minutes > 0.0,
            "checkpoint_minutes: more than 0",
        )?;
        check(
            self.choice_margin
                .is_none_or(|m| m.is_finite() && (0.0..=1.0).contains(&m)),
            "choice_margin: 0 to 1 (a difference of win probabilities)",
        )?;
        check(
            self.choice_margin.is_none() || self.mode != Mode::SelfPlay,
            "choice_margin needs mode distill or search (the teacher values the choices)",
        )?;
        check(
            (1..=3).contains(&self.search_depth),
            "search_depth: 1 to 3 (rolls searched for each target)",
        )?;
        check(
            self.mode != Mode::Distill || self.table.is_some(),
            "mode distill needs table = \"FILE\" (a solved table)",
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_are_typed_and_checked() {
        let c = TrainConfig::default()
            .with_overrides(&[
                "hidden=[32,16]".into(),
                "lambda=0.5".into(),
                "mode=distill".into(),
                "table=ur.sawah".into(),
            ])
            .unwrap();
        assert_eq!(c.hidden, vec![32, 16]);
        assert_eq!(c.lambda, 0.5);
        assert_eq!(c.mode, Mode::Distill);
        assert_eq!(c.table.as_deref(), Some("ur.sawah"));
        let err = TrainConfig::default()
            .with_overrides(&["lamda=0.5".into()])
            .unwrap_err();
        assert!(
            matches!(&err, ConfigError::UnknownSetting { key, known } if key == "lamda" && known.contains("lambda")),
            "{err}"
        );
        let err = TrainConfig::default()
            .with_overrides(&["lambda=2".into()])
            .unwrap_err();
        assert_eq!(err, ConfigError::OutOfRange("lambda: 0 to 1"));
        let err = TrainConfig::default()
            .with_overrides(&["mode=distill".into()])
            .unwrap_err();
        assert!(
            matches!(err, ConfigError::OutOfRange(what) if what.contains("table")),
            "{err}"
        );
        let err = TrainConfig::default()
            .with_overrides(&["batch=many".into()])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "--set batch=many: batch must be a whole number, 0 or more"
        );
        for (item, message) in [
            ("minutes=abc", "--set minutes=abc: minutes must be a number"),
            (
                "hidden=abc",
                "--set hidden=abc: hidden must be a list of layer widths, such as [64] or [128,64]",
            ),
            (
                "mode=ppo",
                "--set mode=ppo: mode must be self-play, distill or search",
            ),
            (
                "games_per_round=-3",
                "--set games_per_round=-3: games_per_round must be a whole number, 0 or more",
            ),
        ] {
            let err = TrainConfig::default()
                .with_overrides(&[item.into()])
                .unwrap_err();
            assert_eq!(err.to_string(), message);
            assert!(!message.contains("f64") && !message.contains("u64"));
        }
        let c = TrainConfig::default()
            .with_overrides(&[
                "mode=distill".into(),
                "table=ur.sawah".into(),
                "choice_margin=0.001".into(),
                "init=models/ur-hard.safetensors".into(),
            ])
            .unwrap();
        assert_eq!(c.choice_margin, Some(0.001));
        assert_eq!(c.init.as_deref(), Some("models/ur-hard.safetensors"));
        let err = TrainConfig::default()
            .with_overrides(&["choice_margin=0.001".into()])
            .unwrap_err();
        assert!(
            matches!(err, ConfigError::OutOfRange(what) if what.contains("needs mode distill or search")),
            "{err}"
        );
        let err = TrainConfig::default()
            .with_overrides(&["choice_margin=2".into()])
            .unwrap_err();
        assert!(
            matches!(err, ConfigError::OutOfRange(what) if what.starts_with("choice_margin: 0 to 1")),
            "{err}"
        );
        let err = TrainConfig::default()
            .with_overrides(&["lambda".into()])
            .unwrap_err();
        assert!(matches!(err, ConfigError::NotKeyValue { .. }), "{err}");
    }
}

/// Why settings were refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The settings file could not be read or parsed.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// A `--set` item without `=`.
    #[error("--set {item:?}: expected key=value")]
    NotKeyValue {
        /// The item.
        item: String,
    },
    /// A `--set` key that is not a setting.
    #[error("--set {key}: no such setting; settings: {known}")]
    UnknownSetting {
        /// The key.
        key: String,
        /// Every setting, comma-separated.
        known: String,
    },
    /// A `--set` value of the wrong type.
    #[error("--set: {0}")]
    BadValue(String),
    /// A `--set` value that is not what its setting takes.
    #[error("--set {key}={value}: {key} must be {allowed}")]
    BadSetting {
        /// The setting.
        key: String,
        /// The value given.
        value: String,
        /// What it takes.
        allowed: &'static str,
    },
    /// A setting out of its range: which, and what is allowed.
    #[error("{0}")]
    OutOfRange(&'static str),
}

/// What a setting takes, in words (for `--set` errors).
fn allowed_values(key: &str) -> &'static str {
    match key {
        "mode" => "self-play, distill or search",
        "hidden" => "a list of layer widths, such as [64] or [128,64]",
        "learning_rate_end" => "a number (the learning rate at the end of the budget)",
        "table" => "a solved table's path",
        "endgame" => "a Senet endgame table's or a partial table's path",
        "encoder" => "an input encoding's id, such as senet-features-v1",
        "init" => "a model file's path",
        "eval_opponents" => {
            "a list of agent specs, such as [\"random\",\"expectiminimax:depth=2\"]"
        }
        "games" | "games_per_round" | "batch" | "seed" | "eval_every" | "eval_games"
        | "search_depth" => "a whole number, 0 or more",
        _ => "a number",
    }
}

/// The names of every setting.
fn setting_names() -> Vec<String> {
    serde_json::to_value(TrainConfig::default())
        .ok()
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default()
}
