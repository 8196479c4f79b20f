//! Per-layer checkpoints of a solve, so a killed solve resumes without
//! redoing finished layer pairs.
//!
//! One file per finished layer pair `(a, b)`, `layers-A-B.bin` in the
//! checkpoint folder: magic `SAWAHLYR`, format version, a JSON header (rule
//! set description, the pair, the index ranges, the residual reached), then
//! the pair's values as f64, both layers' ranges in order. Each is written
//! atomically (temporary file, then rename), so a kill leaves either the
//! whole file or none.

use sawah_engine::race::{LayerPair, PositionIndex, RuleSet};
use serde_json::json;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SAWAHLYR";
const VERSION: u32 = 1;

fn file(dir: &Path, pair: LayerPair) -> PathBuf {
    dir.join(format!("layers-{}-{}.bin", pair.mover, pair.opponent))
}

fn ranges(index: &PositionIndex, pair: LayerPair) -> Vec<Range<u64>> {
    index.pair_ranges(pair)
}

fn header(rules: &RuleSet, index: &PositionIndex, pair: LayerPair, residual: f64) -> Vec<u8> {
    let ranges: Vec<[u64; 2]> = ranges(index, pair)
        .iter()
        .map(|r| [r.start, r.end])
        .collect();
    json!({ "spec": rules.spec(), "pair": [pair.mover, pair.opponent], "ranges": ranges, "residual": residual })
        .to_string()
        .into_bytes()
}

/// Saves a finished layer pair's values.
pub fn save(
    dir: &Path,
    rules: &RuleSet,
    index: &PositionIndex,
    pair: LayerPair,
    residual: f64,
    value: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    sawah_engine::files::create_dir_all(dir)?;
    let header = header(rules, index, pair, residual);
    // Streamed: the largest 7-piece pair is 1 GB of values.
    sawah_agents::files::write_atomically_with(&file(dir, pair), |out| {
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(header.len() as u32).to_le_bytes())?;
        out.write_all(&header)?;
        for range in ranges(index, pair) {
            for i in range {
                out.write_all(&value(i).to_le_bytes())?;
            }
        }
        Ok(())
    })
}

/// Why a layer pair's checkpoint was not used (the pair is then solved
/// again, so none of these stops a solve; all but [`Ignored::Missing`] are
/// worth telling the operator).
#[derive(Debug, thiserror::Error)]
pub enum Ignored {
    /// There is no checkpoint of this pair.
    #[error("no checkpoint")]
    Missing,
    /// The file could not be read.
    #[error("{file}: {source}")]
    Unreadable {
        /// The file.
        file: String,
        /// The read error.
        source: std::io::Error,
    },
    /// The file is not a checkpoint of this format version.
    #[error("{file}: not a sawah layer checkpoint of format version {VERSION}")]
    NotACheckpoint {
        /// The file.
        file: String,
    },
    /// The checkpoint is of another rule set, layer pair or index layout.
    #[error("{file}: a checkpoint of another rule set, layer pair or index layout")]
    Foreign {
        /// The file.
        file: String,
    },
    /// The checkpoint is cut short or too long.
    #[error("{file}: {found} bytes of values; layers {pair} have {expected}")]
    WrongSize {
        /// The file.
        file: String,
        /// The pair.
        pair: LayerPair,
        /// Bytes of values found.
        found: u64,
        /// Bytes of values expected.
        expected: u64,
    },
}

/// A saved layer pair's values and residual, from a valid checkpoint of
/// this rule set and pair, or why there is none (a damaged or foreign file
/// is ignored and the pair is solved again).
pub fn load(
    dir: &Path,
    rules: &RuleSet,
    index: &PositionIndex,
    pair: LayerPair,
) -> Result<(Vec<f64>, f64), Ignored> {
    let path = file(dir, pair);
    let shown = path.display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Ignored::Missing),
        Err(source) => {
            return Err(Ignored::Unreadable {
                file: shown,
                source,
            });
        }
    };
    let not_one = || Ignored::NotACheckpoint {
        file: shown.clone(),
    };
    if bytes.len() < 16 || &bytes[..8] != MAGIC || bytes[8..12] != VERSION.to_le_bytes() {
        return Err(not_one());
    }
    let len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let header_bytes = bytes.get(16..16 + len).ok_or_else(not_one)?;
    let header: serde_json::Value = serde_json::from_slice(header_bytes).map_err(|_| not_one())?;
    let expected: serde_json::Value =
        serde_json::from_slice(&header_fields(rules, index, pair)).map_err(|_| not_one())?;
    if header["spec"] != expected["spec"]
        || header["pair"] != expected["pair"]
        || header["ranges"] != expected["ranges"]
    {
        return Err(Ignored::Foreign { file: shown });
    }
    let count: u64 = ranges(index, pair).iter().map(|r| r.end - r.start).sum();
    let data = &bytes[16 + len..];
    if data.len() as u64 != 8 * count {
        return Err(Ignored::WrongSize {
            file: shown,
            pair,
            found: data.len() as u64,
            expected: 8 * count,
        });
    }
    let residual = header["residual"].as_f64().ok_or_else(not_one)?;
    let values = data
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    Ok((values, residual))
}

fn header_fields(rules: &RuleSet, index: &PositionIndex, pair: LayerPair) -> Vec<u8> {
    header(rules, index, pair, 0.0)
}
