//! `sawah export`: a run's latest weights as a model file for `models/`,
//! with its manifest entry.

use super::run::{Evaluation, RunFolder, TrainError, code_version};
use sawah_agents::neural::NeuralNet;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::Path;

/// A model's entry in a manifest (`OUT.json` beside the model file).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ManifestEntry {
    /// The model file's name.
    pub file: String,
    /// SHA-256 of the model file, hex.
    pub sha256: String,
    /// The rule set id.
    pub rules: String,
    /// The rule set's digest.
    pub rules_digest: String,
    /// The input encoding.
    pub encoder: String,
    /// Inputs.
    pub input_size: usize,
    /// Layer widths, inputs first.
    pub layers: Vec<usize>,
    /// Activation per layer.
    pub activations: Vec<String>,
    /// Trainable parameters.
    pub parameters: usize,
    /// Self-play games trained on.
    pub training_games: u64,
    /// The run's seed.
    pub seed: u64,
    /// The code version that trained it.
    pub code_version: String,
    /// The run's last evaluation (scores against fixed opponents).
    pub strength: Option<Evaluation>,
}

/// Writes the run's current weights to `out` (atomically) with the run's
/// last evaluation in the model's info, and the manifest entry to
/// `OUT.json`. Returns the entry.
pub fn export(run: &Path, out: &Path) -> Result<ManifestEntry, TrainError> {
    let folder = RunFolder {
        dir: run.to_path_buf(),
    };
    let record = folder.read_record()?;
    let mut net = NeuralNet::load_file(&folder.current_model())?;
    let strength = last_evaluation(&folder.evals());
    if let Some(info) = net.info.info.as_object_mut() {
        info.insert(
            "strength".into(),
            serde_json::to_value(&strength).unwrap_or_default(),
        );
        info.insert(
            "exported_by".into(),
            serde_json::Value::from(code_version()),
        );
    }
    let model_bytes = net.to_bytes()?;
    write_atomically(out, &model_bytes)?;
    let info = &net.info.info;
    let entry = ManifestEntry {
        file: out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        sha256: format!("{:x}", Sha256::digest(&model_bytes)),
        rules: net.info.rules.clone(),
        rules_digest: net.info.rules_digest.clone(),
        encoder: net.info.encoder.clone(),
        input_size: net.input_size(),
        layers: net.widths(),
        activations: net
            .layers
            .iter()
            .map(|l| l.activation.name().to_string())
            .collect(),
        parameters: net.parameters(),
        training_games: info["training_games"].as_u64().unwrap_or(0),
        seed: record.config.seed,
        code_version: info["code_version"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        strength,
    };
    let mut entry_path = out.as_os_str().to_owned();
    entry_path.push(".json");
    let text =
        serde_json::to_string_pretty(&entry).map_err(|e| TrainError::Config(e.to_string()))? + "\n";
    write_atomically(Path::new(&entry_path), text.as_bytes())?;
    Ok(entry)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    sawah_agents::files::write_atomically(path, bytes).map_err(|e| TrainError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// The last evaluation in a run's `evals.jsonl` that reads, if any: read a
/// line at a time, each at most 1 MiB (an evaluation is a few hundred
/// bytes; a longer line is skipped as not one).
fn last_evaluation(path: &Path) -> Option<Evaluation> {
    use sawah_engine::files::{BoundedLine, read_line_bounded};
    let file = sawah_engine::files::open_regular(path).ok()?;
    let mut reader = std::io::BufReader::new(file);
    let (mut line, mut last) = (Vec::new(), None);
    loop {
        match read_line_bounded(&mut reader, &mut line, 1 << 20).ok()? {
            BoundedLine::End => return last,
            BoundedLine::TooLong { .. } => {}
            BoundedLine::Line(_) => {
                if let Ok(evaluation) = serde_json::from_slice(&line) {
                    last = Some(evaluation);
                }
            }
        }
    }
}
