//! The checkpoint file: its format (magic, version, a JSON header, then
//! the learner's weights, its optimizer and the playing network), written
//! and read back with every mismatch named.

use crate::neural::heuristic::HeuristicWeights;
use crate::neural::net::ValueNet;
use crate::neural::run::error::{TrainError, file_error};
use crate::neural::run::folder::Counters;
use burn::optim::{AdamConfig, ModuleOptimizer, OptimizerRecord};
use burn::store::{BurnpackStore, ModuleSnapshot};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::{Encoder, NeuralNet};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The largest checkpoint read: a model of the most bytes a model file may
/// have (64 MiB) with its optimizer's two moments, with room to spare.
const MAX_CHECKPOINT_BYTES: u64 = 1 << 30;

/// The checkpoint file's magic bytes.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"SAWAHCKP";
/// The checkpoint format version.
pub const CHECKPOINT_VERSION: u32 = 1;
/// What a checkpoint holds besides the weights.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct CheckpointHeader {
    pub(super) rules: String,
    pub(super) rules_digest: String,
    pub(super) encoder: String,
    pub(super) widths: Vec<usize>,
    pub(super) counters: Counters,
    pub(super) heuristic: HeuristicWeights,
    pub(super) code_version: String,
}

pub(super) struct Checkpoint {
    pub(super) header: CheckpointHeader,
    pub(super) model: Vec<u8>,
    pub(super) optimizer: Vec<u8>,
    /// The network the next round's games are played with (model file bytes).
    pub(super) player: Vec<u8>,
}

pub(super) fn encode_checkpoint(c: &Checkpoint) -> Result<Vec<u8>, String> {
    let header = serde_json::to_vec(&c.header).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    out.extend_from_slice(CHECKPOINT_MAGIC);
    out.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
    for part in [&header, &c.model, &c.optimizer, &c.player] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
    Ok(out)
}

pub(super) fn decode_checkpoint(bytes: &[u8]) -> Result<Checkpoint, String> {
    if bytes.len() < 12 || &bytes[..8] != CHECKPOINT_MAGIC {
        return Err("not a sawah training checkpoint (bad magic)".into());
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != CHECKPOINT_VERSION {
        return Err(format!(
            "checkpoint format version {version}; this build reads {CHECKPOINT_VERSION}"
        ));
    }
    let mut rest = &bytes[12..];
    let mut parts = Vec::new();
    for name in ["header", "model", "optimizer", "player"] {
        if rest.len() < 8 {
            return Err(format!("the file ends before its {name}"));
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&rest[..8]);
        let len =
            usize::try_from(u64::from_le_bytes(len)).map_err(|_| format!("{name} too large"))?;
        rest = &rest[8..];
        if rest.len() < len {
            return Err(format!("the file ends inside its {name} (truncated?)"));
        }
        parts.push(rest[..len].to_vec());
        rest = &rest[len..];
    }
    if !rest.is_empty() {
        return Err("trailing bytes after the checkpoint".into());
    }
    let header: CheckpointHeader =
        serde_json::from_slice(&parts[0]).map_err(|e| format!("header: {e}"))?;
    let player = parts.pop().unwrap_or_default();
    let optimizer = parts.pop().unwrap_or_default();
    let model = parts.pop().unwrap_or_default();
    Ok(Checkpoint {
        header,
        model,
        optimizer,
        player,
    })
}
/// What a checkpoint holds besides the learner's network and optimizer.
pub(super) struct Resumed {
    pub(super) player: NeuralNet,
    pub(super) heuristic: HeuristicWeights,
    pub(super) counters: Counters,
}

/// Reads the run's checkpoint at `path` into `model` and `optimizer`, after
/// checking it is for `game` and a network of `widths`.
pub(super) fn load_checkpoint<G: HasHeuristic>(
    game: &G,
    encoder: Encoder,
    path: &Path,
    widths: &[usize],
    model: &mut ValueNet,
    optimizer: &mut ModuleOptimizer,
) -> Result<Resumed, TrainError> {
    let bytes = sawah_engine::files::read_bounded(path, MAX_CHECKPOINT_BYTES)
        .map_err(|e| file_error(path, e))?;
    let checkpoint = decode_checkpoint(&bytes).map_err(|e| file_error(path, e))?;
    if checkpoint.header.widths != widths
        || checkpoint.header.rules_digest != game.rules_digest()
        || checkpoint.header.encoder != encoder.id()
    {
        return Err(file_error(
            path,
            "the checkpoint does not match the run's rule set, encoder or network",
        ));
    }
    let mut store =
        BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(checkpoint.model)));
    model
        .load_from(&mut store)
        .map_err(|e| file_error(path, format!("weights: {e:?}")))?;
    let record =
        OptimizerRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(checkpoint.optimizer))
            .map_err(|e| file_error(path, format!("optimizer: {e:?}")))?;
    let fresh = std::mem::replace(optimizer, AdamConfig::new().init());
    *optimizer = fresh.load_record(record);
    Ok(Resumed {
        player: NeuralNet::from_bytes(&checkpoint.player).map_err(|e| file_error(path, e))?,
        heuristic: checkpoint.header.heuristic,
        counters: checkpoint.header.counters,
    })
}
