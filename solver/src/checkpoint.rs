//! Per-layer checkpoints of a solve, so a killed solve resumes without
//! redoing finished layer pairs: the race solver's and the Senet endgame
//! solver's, one format.
//!
//! One file per finished layer pair `(a, b)`, `layers-A-B.bin` in the
//! checkpoint folder: magic `SAWAHLYR`, format version, a JSON header (what
//! was solved: a race rule set's description or Senet's endgames, the
//! pair, the index ranges, the residual reached), then the pair's values
//! as f64, the ranges in order. Each is written atomically (temporary
//! file, then rename), so a kill leaves either the whole file or none.
//!
//! A pair that takes long (Senet's four-piece pair sweeps for over an
//! hour) also saves its values as they stand every few minutes,
//! `layers-A-B.partial.bin` (the same format, the header saying how many
//! sweeps were made): value iteration converges from any values, so a
//! killed solve goes on sweeping from them instead of from the start. The
//! partial file is removed when the pair's finished file is written.

use sawah_engine::race::{LayerPair, PositionIndex, RuleSet};
use serde_json::json;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SAWAHLYR";
const VERSION: u32 = 1;

/// Where a layer pair's values sit: what was solved (`spec`), the pair
/// and its index ranges. A checkpoint is used only by a solve whose
/// layout is the same.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// What was solved: a race rule set's description, or Senet's endgames.
    pub spec: serde_json::Value,
    /// The pair `(mover, opponent)`.
    pub pair: (u8, u8),
    /// The index ranges of the pair's values, in the order saved.
    pub ranges: Vec<Range<u64>>,
}

impl Layout {
    /// A race rule set's layer pair.
    pub fn race(rules: &RuleSet, index: &PositionIndex, pair: LayerPair) -> Layout {
        Layout {
            spec: json!(rules.spec()),
            pair: (pair.mover, pair.opponent),
            ranges: index.pair_ranges(pair),
        }
    }

    fn file(&self, dir: &Path) -> PathBuf {
        dir.join(format!("layers-{}-{}.bin", self.pair.0, self.pair.1))
    }

    fn partial_file(&self, dir: &Path) -> PathBuf {
        dir.join(format!(
            "layers-{}-{}.partial.bin",
            self.pair.0, self.pair.1
        ))
    }

    fn positions(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    fn header(&self, residual: f64) -> serde_json::Value {
        let ranges: Vec<[u64; 2]> = self.ranges.iter().map(|r| [r.start, r.end]).collect();
        json!({ "spec": self.spec, "pair": [self.pair.0, self.pair.1], "ranges": ranges, "residual": residual })
    }

    /// The most bytes a checkpoint of this layout may have: its values and
    /// a header of at most 1 MiB (a read is bounded by what it expects).
    fn most_bytes(&self) -> u64 {
        16 + (1 << 20) + 8 * self.positions()
    }
}

/// Saves a finished race layer pair's values.
pub fn save(
    dir: &Path,
    rules: &RuleSet,
    index: &PositionIndex,
    pair: LayerPair,
    residual: f64,
    value: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    save_layout(dir, &Layout::race(rules, index, pair), residual, value)
}

/// Saves a finished layer pair's values (`value` of every index of its
/// ranges), streamed: the largest 7-piece pair is 1 GB of values.
pub fn save_layout(
    dir: &Path,
    layout: &Layout,
    residual: f64,
    value: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    write(
        &layout.file(dir),
        dir,
        layout.header(residual),
        layout,
        value,
    )?;
    match std::fs::remove_file(layout.partial_file(dir)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Saves an unfinished layer pair's values as they stand after `sweeps`
/// sweeps, the last of which changed no value by more than `change`.
pub fn save_partial(
    dir: &Path,
    layout: &Layout,
    sweeps: u32,
    change: f64,
    value: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    let mut header = layout.header(change);
    header["sweeps"] = json!(sweeps);
    write(&layout.partial_file(dir), dir, header, layout, value)
}

/// An unfinished layer pair's values saved by [`save_partial`] (in its
/// ranges' order) and the sweeps made, or why there are none.
pub fn load_partial(dir: &Path, layout: &Layout) -> Result<(Vec<f64>, u32), Ignored> {
    let (values, header) = read(&layout.partial_file(dir), layout)?;
    let sweeps = header["sweeps"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok());
    match sweeps {
        Some(sweeps) => Ok((values, sweeps)),
        None => Err(Ignored::NotACheckpoint {
            file: layout.partial_file(dir).display().to_string(),
        }),
    }
}

fn write(
    path: &Path,
    dir: &Path,
    header: serde_json::Value,
    layout: &Layout,
    value: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    sawah_engine::files::create_dir_all(dir)?;
    let header = header.to_string().into_bytes();
    sawah_agents::files::write_atomically_with(path, |out| {
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(header.len() as u32).to_le_bytes())?;
        out.write_all(&header)?;
        let mut buffer = Vec::with_capacity(1 << 16);
        for range in &layout.ranges {
            for i in range.clone() {
                buffer.extend_from_slice(&value(i).to_le_bytes());
                if buffer.len() >= 1 << 16 {
                    out.write_all(&buffer)?;
                    buffer.clear();
                }
            }
        }
        out.write_all(&buffer)
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
    /// The checkpoint was solved to a looser tolerance than this solve asks.
    #[error(
        "{file}: solved to a residual of {residual:e}, above this solve's tolerance {tolerance:e}"
    )]
    Looser {
        /// The file.
        file: String,
        /// The residual it reached.
        residual: f64,
        /// The tolerance asked now.
        tolerance: f64,
    },
    /// The checkpoint is cut short or too long.
    #[error("{file}: {found} bytes of values; layers ({}, {}) have {expected}", pair.0, pair.1)]
    WrongSize {
        /// The file.
        file: String,
        /// The pair.
        pair: (u8, u8),
        /// Bytes of values found.
        found: u64,
        /// Bytes of values expected.
        expected: u64,
    },
}

/// A saved race layer pair's values and residual, from a valid checkpoint
/// of this rule set and pair, or why there is none (a damaged or foreign
/// file is ignored and the pair is solved again).
pub fn load(
    dir: &Path,
    rules: &RuleSet,
    index: &PositionIndex,
    pair: LayerPair,
) -> Result<(Vec<f64>, f64), Ignored> {
    load_layout(dir, &Layout::race(rules, index, pair), f64::INFINITY)
}

/// A saved layer pair's values (in its ranges' order) and residual, from
/// a valid checkpoint of this layout solved to within `tolerance`, or why
/// there is none.
pub fn load_layout(
    dir: &Path,
    layout: &Layout,
    tolerance: f64,
) -> Result<(Vec<f64>, f64), Ignored> {
    let path = layout.file(dir);
    let (values, header) = read(&path, layout)?;
    let shown = path.display().to_string();
    let residual = header["residual"].as_f64().ok_or(Ignored::NotACheckpoint {
        file: shown.clone(),
    })?;
    if residual > tolerance {
        return Err(Ignored::Looser {
            file: shown,
            residual,
            tolerance,
        });
    }
    Ok((values, residual))
}

/// The values and header of the checkpoint at `path`, checked to be of
/// `layout` and of its size.
fn read(path: &Path, layout: &Layout) -> Result<(Vec<f64>, serde_json::Value), Ignored> {
    let shown = path.display().to_string();
    let bytes = match sawah_engine::files::read_bounded(path, layout.most_bytes()) {
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
    let expected = layout.header(0.0);
    if header["spec"] != expected["spec"]
        || header["pair"] != expected["pair"]
        || header["ranges"] != expected["ranges"]
    {
        return Err(Ignored::Foreign { file: shown });
    }
    let count = layout.positions();
    let data = &bytes[16 + len..];
    if data.len() as u64 != 8 * count {
        return Err(Ignored::WrongSize {
            file: shown,
            pair: layout.pair,
            found: data.len() as u64,
            expected: 8 * count,
        });
    }
    let values = data
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    Ok((values, header))
}
