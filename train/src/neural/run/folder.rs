//! The run folder: where each file is, its lock, and what it records
//! (`config.json`, the counters, the evaluations).

use crate::neural::config::TrainConfig;
use crate::neural::run::error::{TrainError, file_error};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::PathBuf;

/// Where things are in a run folder.
#[derive(Clone, Debug)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
}

impl RunFolder {
    /// The resolved settings.
    pub fn config(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// The run's record (`config.json`: rule set, settings, code version),
    /// to resume it; an error names the file and says if it is not a run
    /// folder.
    pub fn read_record(&self) -> Result<RunRecord, TrainError> {
        let path = self.config();
        // A run's record is a few KB: 1 MiB is the rule files' cap.
        let bytes = sawah_engine::files::read_bounded(&path, 1 << 20)
            .map_err(|e| file_error(&path, format!("{e} (is this a run folder?)")))?;
        let text = String::from_utf8(bytes).map_err(|e| file_error(&path, e))?;
        serde_json::from_str(&text).map_err(|e| file_error(&path, e))
    }
    /// The checkpoint.
    pub fn checkpoint(&self) -> PathBuf {
        self.dir.join("checkpoint.bin")
    }
    /// The latest weights as a model file.
    pub fn current_model(&self) -> PathBuf {
        self.dir.join("current.safetensors")
    }
    /// Evaluation results, one JSON line each.
    pub fn evals(&self) -> PathBuf {
        self.dir.join("evals.jsonl")
    }

    /// Every evaluation so far (at most [`MAX_EVALS_BYTES`] of them); a
    /// line that is not an evaluation is an error naming the line.
    pub fn read_evals(&self) -> Result<Vec<Evaluation>, TrainError> {
        let path = self.evals();
        let bytes = sawah_agents::neural::model::read_bounded(&path, MAX_EVALS_BYTES)
            .map_err(|e| file_error(&path, format!("{e} (has the run evaluated yet?)")))?;
        let text = String::from_utf8(bytes).map_err(|e| file_error(&path, e))?;
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(k, line)| {
                serde_json::from_str(line)
                    .map_err(|e| file_error(&path, format!("line {}: {e}", k + 1)))
            })
            .collect()
    }
    /// The learned weights of the hand-made evaluation.
    pub fn heuristic(&self) -> PathBuf {
        self.dir.join("heuristic.json")
    }
    /// TensorBoard event folders.
    pub fn tensorboard(&self) -> PathBuf {
        self.dir.join("tb")
    }

    /// Takes the folder's lock (`run.lock`) for this process, or says that
    /// another process is training in it.
    pub(super) fn lock(&self) -> Result<fs::File, TrainError> {
        let path = self.dir.join(LOCK_FILE);
        match sawah_agents::files::try_lock_folder(&self.dir, LOCK_FILE) {
            Ok(Some(lock)) => Ok(lock),
            Ok(None) => Err(file_error(
                &path,
                "locked: another process is training in this folder; wait for it or stop it, or choose another --out",
            )),
            Err(e) => Err(file_error(&path, e)),
        }
    }
}
/// The file a training process locks in its run folder.
const LOCK_FILE: &str = "run.lock";
/// The largest `evals.jsonl` read: a line is a few hundred bytes, an
/// evaluation every few thousand games, so this is room for millions.
pub const MAX_EVALS_BYTES: u64 = 64 << 20;
/// What `config.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// The rule set id.
    pub rules: String,
    /// Its digest.
    pub rules_digest: String,
    /// The input encoding.
    pub encoder: String,
    /// The resolved settings.
    pub config: TrainConfig,
    /// The code that started the run.
    pub code_version: String,
}
/// Progress counters (saved in checkpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Rounds trained.
    pub rounds: u64,
    /// Self-play games played and trained on.
    pub games: u64,
    /// Positions trained on.
    pub positions: u64,
    /// Gradient steps.
    pub steps: u64,
    /// Training seconds, over every session.
    pub seconds: f64,
    /// Games at the last evaluation.
    pub evaluated_at: u64,
}
/// One evaluation: the network (greedy, one ply) against fixed opponents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Training games so far.
    pub games: u64,
    /// Per opponent: (opponent spec, score, 95% low, 95% high).
    pub results: Vec<(String, f64, f64, f64)>,
    /// Extra measures (e.g. mean win probability lost per move).
    pub measures: Vec<(String, f64)>,
}
/// The code version recorded with runs and models.
pub fn code_version() -> String {
    match option_env!("SAWAH_GIT_COMMIT") {
        Some(commit) if !commit.is_empty() => format!("{} ({commit})", env!("CARGO_PKG_VERSION")),
        _ => env!("CARGO_PKG_VERSION").to_string(),
    }
}
