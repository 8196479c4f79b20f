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

use crate::assets::MemoryAssets;
use crate::heuristic::HasHeuristic;
use crate::neural::NeuralNet;
use crate::neural::model::MAX_MODEL_BYTES;
#[cfg(not(target_arch = "wasm32"))]
use crate::neural::model::read_bounded;
use crate::puzzle::{MAX_PUZZLE_FILE_BYTES, PuzzleSet};
use crate::spec::{AgentSpec, Levels, SpecError};
use sawah_engine::race::{MAX_RULE_FILE_BYTES, RuleFileFormat, RuleSet};
use sawah_engine::registry::{AnyGame, Registry};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use thiserror::Error;

/// The largest manifest read (the shipped one is about 16 KB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Whether a model name in a manifest is a plain file name inside the
/// models folder: no folders, no way up, nothing absolute.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ':', '\0'])
}

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
    pub measured: Measured,
}

/// What was measured of a level: each figure where it was measured.
/// Scores are the level's share of the points in paired games; losses are
/// win probability given away per decision with a choice (a fraction, not
/// percentage points).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Elo on the rule set's calibration scale (random = 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// The Elo's 95% interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo_ci: Option<[f64; 2]>,
    /// The level's score against random play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_vs_random: Option<f64>,
    /// The level's score against perfect play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_vs_perfect: Option<f64>,
    /// That score's 95% interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_vs_perfect_ci: Option<[f64; 2]>,
    /// Whether that score is luck-adjusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_vs_perfect_luck_adjusted: Option<bool>,
    /// Loss per decision by the solved table (`strength::Scale::Table`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_per_move: Option<f64>,
    /// Loss per decision by the default reference
    /// (`strength::Scale::Reference`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_per_move_by_reference: Option<f64>,
    /// `choose`'s 99th-percentile time on one thread, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choose_p99_ms: Option<f64>,
    /// The noise of a dial setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// Where the figures are tabled (a document and anchor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// When they were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// How they were measured, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Scores against other opponents, by key `score_vs_AGENT` (the levels
    /// build's `score_vs_expectiminimax:depth=2`). No other key is read.
    #[serde(flatten)]
    pub versus: BTreeMap<ScoreVersus, f64>,
}

/// The key of a score against a named opponent: `score_vs_` and the
/// opponent's spec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ScoreVersus(String);

impl ScoreVersus {
    /// The key of the score against `opponent`.
    pub fn against(opponent: &str) -> ScoreVersus {
        ScoreVersus(format!("{SCORE_VS}{opponent}"))
    }

    /// The opponent the score is against.
    pub fn opponent(&self) -> &str {
        self.0.strip_prefix(SCORE_VS).unwrap_or(&self.0)
    }
}

const SCORE_VS: &str = "score_vs_";

impl<'de> Deserialize<'de> for ScoreVersus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let key = String::deserialize(deserializer)?;
        if key.len() > SCORE_VS.len() && key.starts_with(SCORE_VS) {
            Ok(ScoreVersus(key))
        } else {
            Err(serde::de::Error::custom(format!(
                "unknown field `{}` in \"measured\"",
                sawah_engine::text::printable(&key, 40)
            )))
        }
    }
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
    /// Other agents measured in the calibration tournaments (random and
    /// perfect play): with the levels, the points of each rule set's scale
    /// from loss per decision to Elo ([`crate::strength`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<Anchor>,
    /// The strength dial of each rule set (`elo=N`): its model at measured
    /// noise levels, with their Elo on the calibration scale.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dial: Vec<Dial>,
    /// The puzzle set of each rule set ([`crate::puzzle`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub puzzles: Vec<PuzzleFile>,
    /// The rule files of the rule sets that are not built in, so that the
    /// folder carries everything needed to play them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rule_files: Vec<RuleFile>,
}

/// A rule set's rule file (TOML or JSON, `docs/rules.md`), listed in the
/// manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// The rule set id the file defines.
    pub rules: String,
    /// The file, inside the models folder (`.toml` is read as TOML, any
    /// other name as JSON).
    pub file: String,
    /// SHA-256 of the file, hex.
    pub sha256: String,
}

/// A rule set's puzzle set, listed in the manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleFile {
    /// The rule set id.
    pub rules: String,
    /// The file, inside the models folder.
    pub file: String,
    /// SHA-256 of the file, hex.
    pub sha256: String,
    /// How many puzzles it holds.
    pub count: usize,
}

/// A rule set's strength dial: `elo=N` plays its model with the noise that
/// the measured points give for N (interpolated between two points), or hard
/// when N is at or above the noiseless model's Elo and nearer hard's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dial {
    /// The rule set id.
    pub rules: String,
    /// The model file the noise is added to.
    pub model: String,
    /// The spec without noise (`neural:model=ur.safetensors`).
    pub spec: String,
    /// The measured points, any order.
    pub points: Vec<DialPoint>,
}

/// One measured setting of a dial.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DialPoint {
    /// The evaluation noise (σ, in win probability).
    pub noise: f64,
    /// Its Elo on the calibration scale.
    pub elo: f64,
}

impl Dial {
    /// The dial's model at `elo`: its spec with the noise the dial gives
    /// there, rounded to `decimals` places (players get four; puzzle
    /// ratings were measured with six).
    pub fn spec_at(&self, rules: &str, elo: f64, decimals: i32) -> Result<AgentSpec, SpecError> {
        let mut spec = AgentSpec::parse(&self.spec, rules)?;
        let noise = self.noise_for(elo);
        if noise > 0.0 {
            let scale = 10f64.powi(decimals);
            spec.noise = (noise * scale).round() / scale;
        }
        Ok(spec)
    }

    /// The dial's range of Elo: its noisiest point's to its best.
    pub fn range(&self) -> (f64, f64) {
        let elos = self.points.iter().map(|p| p.elo);
        (
            elos.clone().fold(f64::INFINITY, f64::min),
            elos.fold(f64::NEG_INFINITY, f64::max),
        )
    }

    /// The noise that plays at about `elo` (clamped to the dial's range):
    /// between two measured points, geometric in the noise (linear from
    /// the noiseless point).
    /// Elo is made non-increasing in the noise first, so a measured
    /// inversion within the error bars cannot make the dial go backwards.
    pub fn noise_for(&self, elo: f64) -> f64 {
        let mut points = self.points.clone();
        points.retain(|p| p.noise.is_finite() && p.elo.is_finite() && p.noise >= 0.0);
        points.sort_by(|a, b| a.noise.total_cmp(&b.noise));
        let Some(last) = points.last().copied() else {
            return 0.0;
        };
        for k in (0..points.len() - 1).rev() {
            points[k].elo = points[k].elo.max(points[k + 1].elo);
        }
        if elo >= points[0].elo {
            return points[0].noise;
        }
        if elo <= last.elo {
            return last.noise;
        }
        // points[k].elo > elo >= points[k + 1].elo for one k.
        let k = points.partition_point(|p| p.elo > elo) - 1;
        let (a, b) = (points[k], points[k + 1]);
        if a.elo == b.elo {
            return a.noise;
        }
        let t = (a.elo - elo) / (a.elo - b.elo);
        if a.noise > 0.0 {
            // Elo falls about evenly per doubling of the noise (measured:
            // 164 to 235 Elo per doubling on ur), so between two noisy
            // points the noise is interpolated geometrically.
            a.noise * (b.noise / a.noise).powf(t)
        } else {
            a.noise + t * (b.noise - a.noise)
        }
    }
}

/// An agent other than a level measured in a calibration tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// The rule set id.
    pub rules: String,
    /// The agent (`random`, `perfect`).
    pub agent: String,
    /// Its Elo in the calibration table.
    pub elo: f64,
    /// Its mean loss per decision (win probability, 0 to 1), by the solved table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_per_move: Option<f64>,
    /// Its mean loss per decision against the review's default reference
    /// (hard one ply deeper), for reviews without a table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_per_move_by_reference: Option<f64>,
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

/// A checked set of shipped models: the manifest and every model it names,
/// loaded once.
#[derive(Clone, Debug)]
pub struct Models {
    /// The folder the manifest was read from (none when handed over as bytes).
    dir: Option<PathBuf>,
    /// How errors name the manifest.
    shown: String,
    manifest: Manifest,
    nets: BTreeMap<String, Arc<NeuralNet>>,
    puzzles: BTreeMap<String, Arc<PuzzleSet>>,
    /// The rule sets of the manifest's rule files, in its order.
    rule_sets: Vec<Arc<RuleSet>>,
}

/// Reads and checks every rule file the manifest lists: a plain file name,
/// the stated SHA-256, a valid rule set of the stated name, one file per
/// rule set, and no built-in rule set redefined with other rules.
fn load_rule_files(
    manifest: &Manifest,
    shown: &str,
    file: &mut impl FnMut(&str, u64) -> Result<Vec<u8>, String>,
) -> Result<Vec<Arc<RuleSet>>, ManifestError> {
    let built_in = Registry::default();
    let mut sets: Vec<Arc<RuleSet>> = Vec::new();
    for listed in &manifest.rule_files {
        let fail = |message: String| ManifestError::File {
            path: shown.to_string(),
            message: format!("rule file of {} ({}): {message}", listed.rules, listed.file),
        };
        if !is_plain_file_name(&listed.file) {
            return Err(fail("must be a file inside the models folder".into()));
        }
        if sets.iter().any(|r| r.name() == listed.rules) {
            return Err(fail("a second rule file for the same rule set".into()));
        }
        let bytes =
            read_checked(file, &listed.file, MAX_RULE_FILE_BYTES, &listed.sha256).map_err(fail)?;
        let format = RuleFileFormat::of_path(std::path::Path::new(&listed.file));
        let rules =
            RuleSet::from_bytes(&bytes, &listed.file, format).map_err(|e| fail(e.to_string()))?;
        if rules.name() != listed.rules {
            return Err(fail(format!("the file defines {:?}", rules.name())));
        }
        match built_in.get(rules.name()) {
            Ok(AnyGame::Race(known)) if *known == rules => {}
            Ok(_) => {
                return Err(fail(
                    "a built-in rule set of that name has other rules".into(),
                ));
            }
            Err(_) => {}
        }
        sets.push(Arc::new(rules));
    }
    Ok(sets)
}

/// Reads and checks every puzzle set the manifest lists: a plain file
/// name, the stated SHA-256 and count, one set per rule set, and every
/// puzzle valid under its rule set (built in, or one of the folder's rule
/// files).
fn load_puzzles(
    manifest: &Manifest,
    shown: &str,
    rule_sets: &[Arc<RuleSet>],
    file: &mut impl FnMut(&str, u64) -> Result<Vec<u8>, String>,
) -> Result<BTreeMap<String, Arc<PuzzleSet>>, ManifestError> {
    let mut registry = Registry::default();
    for rules in rule_sets {
        registry
            .add((**rules).clone(), shown)
            .map_err(|e| ManifestError::File {
                path: shown.to_string(),
                message: e.to_string(),
            })?;
    }
    let mut sets = BTreeMap::new();
    for listed in &manifest.puzzles {
        let fail = |message: String| ManifestError::File {
            path: shown.to_string(),
            message: format!("puzzles of {} ({}): {message}", listed.rules, listed.file),
        };
        if !is_plain_file_name(&listed.file) {
            return Err(fail("must be a file inside the models folder".into()));
        }
        if sets.contains_key(&listed.rules) {
            return Err(fail("a second set for the same rule set".into()));
        }
        let bytes = read_checked(file, &listed.file, MAX_PUZZLE_FILE_BYTES, &listed.sha256)
            .map_err(fail)?;
        let game = registry
            .get(&listed.rules)
            .map_err(|e| fail(e.to_string()))?;
        let set = sawah_engine::with_game!(&game, g => PuzzleSet::parse(g, &bytes, &listed.file))
            .map_err(|e| fail(e.to_string()))?;
        if set.puzzles.len() != listed.count {
            return Err(fail(format!(
                "{} puzzles; the manifest says {}",
                set.puzzles.len(),
                listed.count
            )));
        }
        sets.insert(listed.rules.clone(), Arc::new(set));
    }
    Ok(sets)
}

/// The levels a manifest may name.
pub const LEVELS: [&str; 3] = ["easy", "medium", "hard"];

/// A file the manifest names, read through `file` at most `limit` bytes
/// and checked against its SHA-256 before anything parses it. A reader
/// that does not cap (bytes handed over by a page) is capped here.
fn read_checked(
    file: &mut impl FnMut(&str, u64) -> Result<Vec<u8>, String>,
    name: &str,
    limit: u64,
    sha256: &str,
) -> Result<Vec<u8>, String> {
    let bytes = file(name, limit)?;
    if bytes.len() as u64 > limit {
        return Err(format!("{} bytes; at most {limit} are read", bytes.len()));
    }
    let digest = format!("{:x}", Sha256::digest(&bytes));
    if digest != sha256 {
        return Err(format!("SHA-256 {digest}, the manifest says {sha256}"));
    }
    Ok(bytes)
}

/// Refuses a spec of a models folder that names a file other than its
/// own model: every file a folder's entry uses is its `model`, a plain
/// file name inside the folder with its SHA-256, so a spec naming a table,
/// weights, an endgame table, or a model path of its own (`/etc/passwd`,
/// `../x.safetensors`) would reach outside what the manifest checks.
fn check_spec_files(spec: &str, rules: &str, model: Option<&str>) -> Result<(), String> {
    let parsed = AgentSpec::parse(spec, rules).map_err(|e| format!("spec {spec:?}: {e}"))?;
    for (option, value) in [
        ("table", &parsed.table),
        ("weights", &parsed.weights),
        ("endgame", &parsed.endgame),
    ] {
        if value.is_some() {
            return Err(format!(
                "the spec names a {option} file; an entry of a models folder plays from its model alone"
            ));
        }
    }
    match (parsed.model.as_deref(), model) {
        (None, _) => Ok(()),
        (Some(named), Some(listed)) if named == listed => Ok(()),
        (Some(named), Some(listed)) => Err(format!(
            "the spec plays model {named:?}, but the entry's model is {listed:?}"
        )),
        (Some(named), None) => Err(format!(
            "the spec plays model {named:?}, which the entry does not list (as \"model\", with its \"sha256\")"
        )),
    }
}

impl Models {
    /// Reads `DIR/manifest.json` and checks its format and that every model
    /// file it names exists with the stated SHA-256 (see [`Models::from_bytes`]).
    /// Files are read only if they are regular files of at most
    /// [`MAX_MODEL_BYTES`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load(dir: &Path) -> Result<Models, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let shown = path.display().to_string();
        let text = read_bounded(&path, MAX_MANIFEST_BYTES).map_err(|e| ManifestError::File {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        let mut models = Models::from_bytes(&text, &shown, |name, limit| {
            sawah_engine::files::read_in_folder(dir, name, limit).map_err(|e| e.to_string())
        })?;
        models.dir = Some(dir.to_path_buf());
        Ok(models)
    }

    /// Checks a manifest (`manifest`, the bytes of `manifest.json`, named
    /// `shown` in errors) and every model file it names, which `file` reads
    /// by the name the manifest gives: each must exist with the stated
    /// SHA-256 and be a model. (Rule set and encoder are checked per game
    /// by [`Models::check`] and when an agent is built.) No file system:
    /// this is how a browser, handed the files as bytes, loads them.
    pub fn from_bytes(
        manifest: &[u8],
        shown: &str,
        mut file: impl FnMut(&str, u64) -> Result<Vec<u8>, String>,
    ) -> Result<Models, ManifestError> {
        let file_error = |message: String| ManifestError::File {
            path: shown.to_string(),
            message,
        };
        let manifest: Manifest =
            serde_json::from_slice(manifest).map_err(|e| file_error(e.to_string()))?;
        if manifest.format != MANIFEST_FORMAT || manifest.format_version != MANIFEST_VERSION {
            return Err(file_error(format!(
                "format {:?} version {}; this build reads {MANIFEST_FORMAT:?} version {MANIFEST_VERSION}",
                manifest.format, manifest.format_version
            )));
        }
        let mut seen = std::collections::HashSet::new();
        let mut nets = BTreeMap::new();
        for level in &manifest.levels {
            let fail = |message: String| ManifestError::Level {
                manifest: shown.to_string(),
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
            check_spec_files(&level.spec, &level.rules, level.model.as_deref()).map_err(fail)?;
            if let Some(model) = &level.model {
                if !is_plain_file_name(model) {
                    return Err(fail(format!(
                        "model {model:?} must be a file inside the models folder"
                    )));
                }
                let Some(sha256) = level.sha256.as_deref() else {
                    return Err(fail(format!("model {model}: no sha256 in the manifest")));
                };
                let bytes = read_checked(&mut file, model, MAX_MODEL_BYTES, sha256)
                    .map_err(|e| fail(format!("model {model}: {e}")))?;
                if !level.spec.contains(&format!("model={model}")) {
                    return Err(fail(format!("the spec does not use its model {model}")));
                }
                if !nets.contains_key(model) {
                    let net = NeuralNet::from_bytes(&bytes)
                        .map_err(|e| fail(format!("model {model}: {e}")))?;
                    nets.insert(model.clone(), Arc::new(net));
                }
            }
        }
        for dial in &manifest.dial {
            let fail = |message: String| ManifestError::File {
                path: shown.to_string(),
                message: format!("the dial of {}: {message}", dial.rules),
            };
            if !nets.contains_key(&dial.model) {
                return Err(fail(format!(
                    "model {:?} is no level's model (the manifest checks only those)",
                    dial.model
                )));
            }
            check_spec_files(&dial.spec, &dial.rules, Some(&dial.model)).map_err(fail)?;
        }
        let rule_sets = load_rule_files(&manifest, shown, &mut file)?;
        let puzzles = load_puzzles(&manifest, shown, &rule_sets, &mut file)?;
        Ok(Models {
            dir: None,
            shown: shown.to_string(),
            manifest,
            nets,
            puzzles,
            rule_sets,
        })
    }

    /// Puts every model into `assets` under the name the manifest gives it,
    /// so that the specs levels resolve to ([`Levels`]) build from memory.
    pub fn add_to(&self, assets: &mut MemoryAssets) {
        for (name, net) in &self.nets {
            assets.add_model(name, Arc::clone(net));
        }
    }

    /// The rule sets the folder's rule files define (none are built in).
    pub fn rule_sets(&self) -> &[Arc<RuleSet>] {
        &self.rule_sets
    }

    /// Makes the folder's rule sets known to `registry` by their names (a
    /// rule set it already knows by that name must be the same one).
    pub fn register(&self, registry: &mut Registry) -> Result<(), ManifestError> {
        for rules in &self.rule_sets {
            registry
                .add((**rules).clone(), &self.shown)
                .map_err(|e| ManifestError::File {
                    path: self.shown.clone(),
                    message: format!("rule file of {}: {e}", rules.name()),
                })?;
        }
        Ok(())
    }

    /// The puzzle set of rule set `rules`, if the manifest lists one.
    pub fn puzzles(&self, rules: &str) -> Option<&Arc<PuzzleSet>> {
        self.puzzles.get(rules)
    }

    /// The shipped models embedded in the crate (feature `shipped`),
    /// checked against the manifest's SHA-256 once.
    #[cfg(feature = "shipped")]
    pub fn shipped() -> &'static Models {
        static MODELS: std::sync::OnceLock<Models> = std::sync::OnceLock::new();
        MODELS.get_or_init(|| {
            let manifest = crate::shipped::file(MANIFEST_FILE).unwrap_or_default();
            Models::from_bytes(manifest, "manifest.json (embedded)", |name, _limit| {
                crate::shipped::file(name)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| "not embedded".to_string())
            })
            .expect("the embedded models match their manifest (checked when they were built)")
        })
    }

    /// The folder the manifest was read from (none when handed over as bytes).
    pub fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_deref()
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

    /// The spec that plays `rules` at about `elo` by its dial: the dial's
    /// model with its noise (to four decimals), or hard's spec where the
    /// dial hands over to hard (hard stronger than the noiseless point,
    /// `elo` nearer hard's Elo). `None` without a dial.
    pub fn dial(&self, rules: &str, elo: f64) -> Result<Option<AgentSpec>, SpecError> {
        let Some(dial) = self.manifest.dial.iter().find(|d| d.rules == rules) else {
            return Ok(None);
        };
        let (_, best) = dial.range();
        if let Some(hard) = self.level(rules, "hard")
            && let Some(hard_elo) = hard.measured.elo
            && hard_elo > best
            && elo >= (best + hard_elo) / 2.0
        {
            return AgentSpec::parse(&hard.spec, rules).map(Some);
        }
        dial.spec_at(rules, elo, 4).map(Some)
    }

    /// `spec` with its model, when it is one of these models and they were
    /// read from a folder, named by its path there: for agents that read
    /// model files from the file system rather than from [`Models::add_to`]'s
    /// store (which holds them by the manifest's names).
    /// A file of that name where the agent runs wins, as it does over an
    /// embedded model (`crate::assets::default_assets`).
    pub fn located(&self, mut spec: AgentSpec) -> AgentSpec {
        if let (Some(dir), Some(model)) = (&self.dir, &spec.model)
            && self.nets.contains_key(model)
            && !std::path::Path::new(model).exists()
        {
            spec.model = Some(dir.join(model).display().to_string());
        }
        spec
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
                manifest: self.shown.clone(),
                rules: entry.rules.clone(),
                level: entry.level.clone(),
                message,
            };
            if let Some(model) = &entry.model {
                let net = self
                    .nets
                    .get(model)
                    .ok_or_else(|| fail(format!("model {model} was not loaded")))?;
                net.check_for(game).map_err(|e| fail(e.to_string()))?;
                if entry.encoder.as_deref() != Some(net.info.encoder.as_str()) {
                    return Err(fail(format!(
                        "the manifest says encoder {:?}, the model has {}",
                        entry.encoder, net.info.encoder
                    )));
                }
            }
            let mut assets = MemoryAssets::new();
            self.add_to(&mut assets);
            crate::AgentSpec::parse(&entry.spec, game.name())
                .and_then(|s| s.build_with(game, &assets).map(|_| ()))
                .map_err(|e| fail(e.to_string()))?;
        }
        Ok(())
    }
}

/// The levels of the manifest (`easy`, `medium`, `hard`) and its dial
/// (`elo=N`), models named as the manifest names them.
impl Levels for Models {
    fn resolve(&self, name: &str, rules: &str) -> Result<Option<AgentSpec>, SpecError> {
        if let Some(entry) = self.level(rules, name) {
            return AgentSpec::parse(&entry.spec, rules).map(Some);
        }
        match name.strip_prefix("elo=").map(|e| e.trim().parse::<f64>()) {
            Some(Ok(elo)) if elo.is_finite() => self.dial(rules, elo),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_figures_read_typed_and_write_back_the_same() {
        let text = r#"{"elo":1005.0,"elo_ci":[980.0,1030.0],"score_vs_perfect":0.4991,
            "score_vs_perfect_ci":[0.499,0.4992],"score_vs_perfect_luck_adjusted":true,
            "loss_per_move":null,"loss_per_move_by_reference":0.0001,"choose_p99_ms":8.9,
            "score_vs_expectiminimax:depth=2":0.674,"table":"models/ELO.md#ur","note":"n"}"#;
        let measured: Measured = serde_json::from_str(text).unwrap();
        assert_eq!(measured.elo, Some(1005.0));
        assert_eq!(measured.score_vs_perfect_ci, Some([0.499, 0.4992]));
        assert_eq!(measured.loss_per_move, None);
        assert_eq!(
            crate::strength::Scale::Reference.loss_of(&measured),
            Some(0.0001)
        );
        let (versus, score) = measured.versus.iter().next().unwrap();
        assert_eq!(
            (versus.opponent(), *score),
            ("expectiminimax:depth=2", 0.674)
        );
        let written = serde_json::to_string(&measured).unwrap();
        assert_eq!(
            serde_json::from_str::<Measured>(&written).unwrap(),
            measured
        );
        // A key it does not know, or a known one of the wrong type, is
        // refused, named.
        for (text, says) in [
            (r#"{"elo":1,"speed":3}"#, "unknown field `speed`"),
            (r#"{"score_vs_":0.5}"#, "unknown field `score_vs_`"),
            (r#"{"elo":"high"}"#, "invalid type"),
            (r#"{"score_vs_random":"x"}"#, "invalid type"),
        ] {
            let error = serde_json::from_str::<Measured>(text)
                .unwrap_err()
                .to_string();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    fn dial() -> Dial {
        let point = |noise, elo| DialPoint { noise, elo };
        Dial {
            rules: "ur".into(),
            model: "ur.safetensors".into(),
            spec: "neural:model=ur.safetensors".into(),
            points: vec![
                point(0.04, 594.0),
                point(0.0, 1045.0),
                point(0.16, 150.0),
                point(0.02, 808.0),
                point(0.08, 330.0),
            ],
        }
    }

    #[test]
    fn the_dial_hits_its_points_interpolates_between_and_clamps_outside() {
        let d = dial();
        for p in &d.points {
            assert!((d.noise_for(p.elo) - p.noise).abs() < 1e-12, "{p:?}");
        }
        // Halfway in Elo between medium (0.02) and easy (0.04): the
        // geometric middle; between noiseless and 0.02, linear.
        assert!((d.noise_for(701.0) - 0.02 * 2f64.sqrt()).abs() < 1e-12);
        assert!((d.noise_for((1045.0 + 808.0) / 2.0) - 0.01).abs() < 1e-12);
        assert_eq!(d.noise_for(5000.0), 0.0);
        assert_eq!(d.noise_for(-100.0), 0.16);
        assert_eq!(d.range(), (150.0, 1045.0));
        // Less Elo, more noise, everywhere.
        let mut last = -1.0;
        for elo in (100..1100).rev().step_by(7) {
            let noise = d.noise_for(f64::from(elo));
            assert!(noise >= last, "{elo}");
            last = noise;
        }
    }

    #[test]
    fn an_inverted_measurement_does_not_turn_the_dial_back() {
        let mut d = dial();
        d.points.push(DialPoint {
            noise: 0.12,
            elo: 340.0,
        });
        let mut last = -1.0;
        for elo in (100..1100).rev().step_by(3) {
            let noise = d.noise_for(f64::from(elo));
            assert!(noise >= last, "{elo}: {noise} after {last}");
            last = noise;
        }
    }
}
