//! Solved tables: every position's win probability for the side to move,
//! in the solver's index order, in a self-describing file.
//!
//! Layout (little-endian):
//!
//! | offset | content |
//! |---|---|
//! | 0 | magic `SAWAHTBL` (8 bytes) |
//! | 8 | format version, `u32` (1) |
//! | 12 | header length `H`, `u32` |
//! | 16 | header: `H` bytes of JSON (rule set id and full description, index id, state count, value type, residual reached, tolerance, solver version) |
//! | 16 + H, rounded up to 8 | the values: `states` × `f32` |
//!
//! Files are written atomically (a temporary file in the same folder, then a
//! rename), and read by memory-mapping, after checking the header against
//! the rule set in use.

use sawah_engine::race::{Position, PositionIndex, RuleSet, RuleSpec};
use serde_json::json;
use std::fs::File;
use std::io;
use std::path::Path;
use thiserror::Error;

/// The first bytes of every table file.
pub const MAGIC: &[u8; 8] = b"SAWAHTBL";
/// The format version this code reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// The index layout the values follow.
pub const INDEX_ID: &str = "score-layers-v1";

/// Why a table file was refused.
#[derive(Debug, Error)]
pub enum TableError {
    /// The file could not be read or written.
    #[error("table {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: io::Error,
    },
    /// Not a table, or a damaged or unsupported one.
    #[error("table {path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A table of another rule set.
    #[error("table {path} is for rule set {found:?}, not {expected:?}")]
    WrongRules {
        /// The file.
        path: String,
        /// The rule set in use.
        expected: String,
        /// The table's.
        found: String,
    },
}

/// What a table says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct TableInfo {
    /// Positions (values) in the table.
    pub states: u64,
    /// The largest residual `|T(V) − V|` the solver reached (in f64).
    pub residual: f64,
    /// The tolerance it was asked for.
    pub tolerance: f64,
}

fn header_json(rules: &RuleSet, info: &TableInfo) -> Vec<u8> {
    json!({
        "rules": rules.name(),
        "spec": rules.spec(),
        "index": INDEX_ID,
        "states": info.states,
        "value_type": "f32",
        "residual": info.residual,
        "tolerance": info.tolerance,
        "solver": concat!("sawah-ai ", env!("CARGO_PKG_VERSION")),
    })
    .to_string()
    .into_bytes()
}

fn data_offset(header_len: usize) -> usize {
    (16 + header_len).div_ceil(8) * 8
}

/// Writes a table atomically: `values` (f64, in index order) are stored as f32.
pub fn write_table(
    path: &Path,
    rules: &RuleSet,
    values: &[f64],
    info: &TableInfo,
) -> Result<(), TableError> {
    let shown = path.display().to_string();
    let io_err = |source| TableError::Io {
        path: shown.clone(),
        source,
    };
    let header = header_json(rules, info);
    let mut bytes = Vec::with_capacity(data_offset(header.len()) + values.len() * 4);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.resize(data_offset(header.len()), 0);
    for &v in values {
        bytes.extend_from_slice(&(v as f32).to_le_bytes());
    }
    crate::files::write_atomically(path, &bytes).map_err(io_err)
}

/// A solved table, memory-mapped, checked against its rule set.
pub struct Table {
    map: memmap2::Mmap,
    offset: usize,
    index: PositionIndex,
    info: TableInfo,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("info", &self.info).finish()
    }
}

impl Table {
    /// Opens a table and checks it belongs to `rules` (same rule set id and
    /// full description, same index layout and size).
    pub fn open(path: &Path, rules: &RuleSet) -> Result<Table, TableError> {
        let shown = path.display().to_string();
        let format = |message: String| TableError::Format {
            path: shown.clone(),
            message,
        };
        let file = File::open(path).map_err(|source| TableError::Io {
            path: shown.clone(),
            source,
        })?;
        // Safety: the map is read-only; a file changed underneath by another
        // process would show changed values, never unsafety in this process
        // beyond that (the same caveat as every memory-mapped reader).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|source| TableError::Io {
            path: shown.clone(),
            source,
        })?;
        if map.len() < 16 || &map[..8] != MAGIC {
            return Err(format("not a sawah table (bad magic)".into()));
        }
        let version = u32::from_le_bytes([map[8], map[9], map[10], map[11]]);
        if version != FORMAT_VERSION {
            return Err(format(format!(
                "format version {version}; this build reads version {FORMAT_VERSION}"
            )));
        }
        let header_len = u32::from_le_bytes([map[12], map[13], map[14], map[15]]) as usize;
        if map.len() < 16 + header_len {
            return Err(format("the file ends inside its header".into()));
        }
        let header: serde_json::Value = serde_json::from_slice(&map[16..16 + header_len])
            .map_err(|e| format(format!("header is not JSON: {e}")))?;
        let found = header["rules"].as_str().unwrap_or_default().to_string();
        let spec: Option<RuleSpec> = serde_json::from_value(header["spec"].clone()).ok();
        if found != rules.name() || spec.as_ref() != Some(rules.spec()) {
            return Err(TableError::WrongRules {
                path: shown,
                expected: rules.name().to_string(),
                found,
            });
        }
        if header["index"] != INDEX_ID || header["value_type"] != "f32" {
            return Err(format(format!(
                "index {} with {} values; this build reads {INDEX_ID} with f32",
                header["index"], header["value_type"]
            )));
        }
        let index = PositionIndex::new(rules);
        let states = header["states"].as_u64().unwrap_or(0);
        if states != index.len() {
            return Err(format(format!(
                "{states} states; the rule set has {}",
                index.len()
            )));
        }
        let offset = data_offset(header_len);
        if map.len() as u64 != offset as u64 + 4 * states {
            return Err(format(format!(
                "{} bytes; a table of {states} states has {}",
                map.len(),
                offset as u64 + 4 * states
            )));
        }
        let info = TableInfo {
            states,
            residual: header["residual"].as_f64().unwrap_or(f64::NAN),
            tolerance: header["tolerance"].as_f64().unwrap_or(f64::NAN),
        };
        Ok(Table {
            map,
            offset,
            index,
            info,
        })
    }

    /// What the table says about itself.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// The win probability for the side to move (exact up to f32 rounding,
    /// about 6e-8, plus the solver's residual).
    #[inline]
    pub fn value(&self, position: &Position) -> f64 {
        let at = self.offset + 4 * self.index.index(position) as usize;
        f64::from(f32::from_le_bytes([
            self.map[at],
            self.map[at + 1],
            self.map[at + 2],
            self.map[at + 3],
        ]))
    }
}
