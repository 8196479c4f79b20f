//! The shipped opponents: `models/manifest.json` names, for every rule set
//! and level (`easy`, `medium`, `hard`), the agent spec that plays it and
//! the model file it needs, with the file's SHA-256 and the measured
//! strength. Loading checks the manifest and every file it names: a missing
//! file, a checksum mismatch, or a model for another rule set or encoder is
//! refused with a message.
//!
//! ```json
//! {"format":"sawah-models","format_version":1,"levels":[
//!   {"rules":"ur","level":"hard","spec":"neural:model=ur-hard.safetensors:depth=1",
//!    "model":"ur-hard.safetensors","sha256":"…","encoder":"race-onehot-v1",
//!    "measured":{"elo":…,"score_vs_random":…}}]}
//! ```
//!
//! Specs name model files relative to the manifest's folder; resolving a
//! level gives the spec with the full path.

use crate::heuristic::HasHeuristic;
use crate::neural::NeuralNet;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What the manifest's `format` says.
pub const MANIFEST_FORMAT: &str = "sawah-models";
/// The manifest format version this build reads.
pub const MANIFEST_VERSION: u32 = 1;
/// The manifest's file name in a models folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// One level of one rule set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// The rule set id.
    pub rules: String,
    /// `easy`, `medium` or `hard`.
    pub level: String,
    /// The agent spec; model files relative to the manifest's folder.
    pub spec: String,
    /// The model file the spec uses, if any.
    #[serde(default)]
    pub model: Option<String>,
    /// SHA-256 of the model file, hex.
    #[serde(default)]
    pub sha256: Option<String>,
    /// The model's input encoder.
    #[serde(default)]
    pub encoder: Option<String>,
    /// Measured figures (Elo in the calibration table, scores, loss per move).
    #[serde(default)]
    pub measured: serde_json::Value,
}

/// The manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Always [`MANIFEST_VERSION`].
    pub format_version: u32,
    /// Every level.
    pub levels: Vec<Level>,
}

/// Why a models folder was refused.
#[derive(Debug, Error)]
pub enum ManifestError {
    /// Reading failed.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The manifest or a file it names is not what it says.
    #[error("{manifest}: {rules} {level}: {message}")]
    Level {
        /// The manifest.
        manifest: String,
        /// The rule set.
        rules: String,
        /// The level.
        level: String,
        /// What is wrong.
        message: String,
    },
}

/// A checked models folder.
#[derive(Clone, Debug)]
pub struct Models {
    dir: PathBuf,
    manifest: Manifest,
}

/// The levels a manifest may name.
pub const LEVELS: [&str; 3] = ["easy", "medium", "hard"];

impl Models {
    /// Reads `DIR/manifest.json` and checks its format and that every model
    /// file it names exists with the stated SHA-256. (Rule set and encoder
    /// are checked per game by [`Models::check`] and on loading.)
    pub fn load(dir: &Path) -> Result<Models, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let shown = path.display().to_string();
        let file_error = |message: String| ManifestError::File {
            path: shown.clone(),
            message,
        };
        let text = std::fs::read_to_string(&path).map_err(|e| file_error(e.to_string()))?;
        let manifest: Manifest =
            serde_json::from_str(&text).map_err(|e| file_error(e.to_string()))?;
        if manifest.format != MANIFEST_FORMAT || manifest.format_version != MANIFEST_VERSION {
            return Err(file_error(format!(
                "format {:?} version {}; this build reads {MANIFEST_FORMAT:?} version {MANIFEST_VERSION}",
                manifest.format, manifest.format_version
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for level in &manifest.levels {
            let fail = |message: String| ManifestError::Level {
                manifest: shown.clone(),
                rules: level.rules.clone(),
                level: level.level.clone(),
                message,
            };
            if !LEVELS.contains(&level.level.as_str()) {
                return Err(fail(format!("level must be one of {}", LEVELS.join(", "))));
            }
            if !seen.insert((level.rules.clone(), level.level.clone())) {
                return Err(fail("listed twice".into()));
            }
            if let Some(model) = &level.model {
                if model.contains("..") || Path::new(model).is_absolute() {
                    return Err(fail(format!(
                        "model {model:?} must be a file inside the models folder"
                    )));
                }
                let bytes = std::fs::read(dir.join(model))
                    .map_err(|e| fail(format!("model {model}: {e}")))?;
                let digest = format!("{:x}", Sha256::digest(&bytes));
                if level.sha256.as_deref() != Some(digest.as_str()) {
                    return Err(fail(format!(
                        "model {model}: SHA-256 {digest}, the manifest says {}",
                        level.sha256.as_deref().unwrap_or("nothing")
                    )));
                }
                if !level.spec.contains(&format!("model={model}")) {
                    return Err(fail(format!("the spec does not use its model {model}")));
                }
            }
        }
        Ok(Models {
            dir: dir.to_path_buf(),
            manifest,
        })
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The level entry of a rule set, if the manifest has one.
    pub fn level(&self, rules: &str, level: &str) -> Option<&Level> {
        self.manifest
            .levels
            .iter()
            .find(|l| l.rules == rules && l.level == level)
    }

    /// The spec text of a level with model paths made full (`model=FILE` →
    /// `model=DIR/FILE`), or `None` when the manifest has no such level.
    pub fn spec_text(&self, rules: &str, level: &str) -> Option<String> {
        let entry = self.level(rules, level)?;
        Some(match &entry.model {
            Some(model) => entry.spec.replace(
                &format!("model={model}"),
                &format!("model={}", self.dir.join(model).display()),
            ),
            None => entry.spec.clone(),
        })
    }

    /// Expands a bot name that starts with a level (`hard`, `easy:seed=3`)
    /// into the manifest's spec for `rules`, keeping extra options; any
    /// other text is returned as it is.
    pub fn expand(&self, text: &str, rules: &str) -> String {
        let trimmed = text.trim();
        let (head, rest) = match trimmed.split_once(':') {
            Some((h, r)) => (h, Some(r)),
            None => (trimmed, None),
        };
        match self.spec_text(rules, head) {
            Some(spec) => match rest {
                Some(rest) => format!("{spec}:{rest}"),
                None => spec,
            },
            None => trimmed.to_string(),
        }
    }

    /// Checks every level of `game`'s rule set: its model belongs to the
    /// rule set and encoder, and its spec builds.
    pub fn check<G: HasHeuristic + 'static>(&self, game: &G) -> Result<(), ManifestError> {
        for entry in self
            .manifest
            .levels
            .iter()
            .filter(|l| l.rules == game.name())
        {
            let fail = |message: String| ManifestError::Level {
                manifest: self.dir.join(MANIFEST_FILE).display().to_string(),
                rules: entry.rules.clone(),
                level: entry.level.clone(),
                message,
            };
            if let Some(model) = &entry.model {
                let net = NeuralNet::load(&self.dir.join(model), game)
                    .map_err(|e| fail(e.to_string()))?;
                if entry.encoder.as_deref() != Some(net.info.encoder.as_str()) {
                    return Err(fail(format!(
                        "the manifest says encoder {:?}, the model has {}",
                        entry.encoder, net.info.encoder
                    )));
                }
            }
            let spec = self
                .spec_text(&entry.rules, &entry.level)
                .unwrap_or_default();
            crate::AgentSpec::parse(&spec, game.name())
                .and_then(|s| s.build(game).map(|_| ()))
                .map_err(|e| fail(e.to_string()))?;
        }
        Ok(())
    }
}
