//! Per-layer checkpoints of a solve, so a killed solve resumes without
//! redoing finished layer pairs.
//!
//! One file per finished layer pair `(a, b)`, `layers-A-B.bin` in the
//! checkpoint folder: magic `SAWAHLYR`, format version, a JSON header (rule
//! set description, the pair, the index ranges, the residual reached), then
//! the pair's values as f64, both layers' ranges in order. Each is written
//! atomically (temporary file, then rename), so a kill leaves either the
//! whole file or none.

use sawah_engine::race::{PositionIndex, RuleSet};
use serde_json::json;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SAWAHLYR";
const VERSION: u32 = 1;

fn file(dir: &Path, (a, b): (u8, u8)) -> PathBuf {
    dir.join(format!("layers-{a}-{b}.bin"))
}

fn ranges(index: &PositionIndex, (a, b): (u8, u8)) -> Vec<Range<u64>> {
    let mut ranges = vec![index.layer_range(a, b)];
    if a != b {
        ranges.push(index.layer_range(b, a));
    }
    ranges
}

fn header(rules: &RuleSet, index: &PositionIndex, pair: (u8, u8), residual: f64) -> Vec<u8> {
    let ranges: Vec<[u64; 2]> = ranges(index, pair)
        .iter()
        .map(|r| [r.start, r.end])
        .collect();
    json!({ "spec": rules.spec(), "pair": [pair.0, pair.1], "ranges": ranges, "residual": residual })
        .to_string()
        .into_bytes()
}

/// Saves a finished layer pair's values.
pub fn save(
    dir: &Path,
    rules: &RuleSet,
    index: &PositionIndex,
    pair: (u8, u8),
    residual: f64,
    value: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
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

/// A saved layer pair's values and residual, if a valid checkpoint of this
/// rule set and pair exists (anything else, damaged or foreign, is ignored
/// and the pair is solved again).
pub fn load(
    dir: &Path,
    rules: &RuleSet,
    index: &PositionIndex,
    pair: (u8, u8),
) -> Option<(Vec<f64>, f64)> {
    let bytes = std::fs::read(file(dir, pair)).ok()?;
    if bytes.len() < 16 || &bytes[..8] != MAGIC || bytes[8..12] != VERSION.to_le_bytes() {
        return None;
    }
    let len = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
    let header_bytes = bytes.get(16..16 + len)?;
    let header: serde_json::Value = serde_json::from_slice(header_bytes).ok()?;
    let expected: serde_json::Value =
        serde_json::from_slice(&header_fields(rules, index, pair)).ok()?;
    if header["spec"] != expected["spec"]
        || header["pair"] != expected["pair"]
        || header["ranges"] != expected["ranges"]
    {
        return None;
    }
    let count: u64 = ranges(index, pair).iter().map(|r| r.end - r.start).sum();
    let data = &bytes[16 + len..];
    if data.len() as u64 != 8 * count {
        return None;
    }
    let values = data
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    Some((values, header["residual"].as_f64()?))
}

fn header_fields(rules: &RuleSet, index: &PositionIndex, pair: (u8, u8)) -> Vec<u8> {
    header(rules, index, pair, 0.0)
}

/// The index ranges a pair's checkpoint covers, in file order.
pub fn pair_ranges(index: &PositionIndex, pair: (u8, u8)) -> Vec<Range<u64>> {
    ranges(index, pair)
}
