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
//! | 16 | header: `H` bytes of JSON (rule set id and full description, index id, state count, value type, residual reached, tolerance, solver version; a partial table's `layers`) |
//! | 16 + H, rounded up to 8 | the values: `states` × `f32`, or × `u16` |
//!
//! Values are f32 for play (rounding error at most 2^-25 ≈ 3e-8 on a
//! probability), or u16 quantised for smaller downloads: `round(v · 65535)`,
//! read back as `q / 65535`, so a stored value is within 1/131070 ≈ 7.6e-6
//! of the solved one (see [`ValueType::rounding_error`]). The solver's
//! residual (1e-10 by default) comes on top of either.
//!
//! Files are written atomically (a temporary file in the same folder, then a
//! rename), and read by memory-mapping, after checking the header against
//! the rule set in use.
//!
//! A *partial* table holds the late layers of a rule set alone (a closed
//! [`LayerSet`], solved exactly where a whole solve does not fit): its
//! header lists them (`"layers": [[a, b], …]`, each unfinished pair held)
//! and its values follow [`PositionIndex::of_layers`]. [`Table::open`]
//! refuses one, so that nothing that needs every position (perfect play,
//! reviews, luck) reads it by mistake; [`Table::open_partial`] opens
//! either kind, and [`Table::get`] says which positions it holds.

use sawah_engine::race::{LayerPair, LayerSet, Position, PositionIndex, RuleSet, RuleSpec};
#[cfg(not(target_arch = "wasm32"))]
use serde_json::json;
use std::io;
#[cfg(not(target_arch = "wasm32"))]
use std::io::Write;
#[cfg(not(target_arch = "wasm32"))]
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

/// How a table stores its values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueType {
    /// 32-bit floats: for play and analysis.
    #[default]
    F32,
    /// 16-bit fixed point, `round(v · 65535)`: half the size, for downloads.
    U16,
}

impl ValueType {
    /// Every value type, in the order the CLI lists them.
    pub const ALL: [ValueType; 2] = [ValueType::F32, ValueType::U16];

    /// The name in the header and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::F32 => "f32",
            ValueType::U16 => "u16",
        }
    }

    /// The value type called `name`, if any.
    pub fn from_name(name: &str) -> Option<ValueType> {
        ValueType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Bytes per value.
    pub fn bytes(self) -> usize {
        match self {
            ValueType::F32 => 4,
            ValueType::U16 => 2,
        }
    }

    /// The largest difference storing adds to a probability in [0, 1]:
    /// half a unit in the last place of f32 below 1 (2^-25), or half a
    /// quantisation step (1 / 131070).
    pub fn rounding_error(self) -> f64 {
        match self {
            ValueType::F32 => 2f64.powi(-25),
            ValueType::U16 => 0.5 / f64::from(u16::MAX),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn encode(self, value: f64, out: &mut impl io::Write) -> io::Result<()> {
        match self {
            ValueType::F32 => out.write_all(&(value as f32).to_le_bytes()),
            ValueType::U16 => {
                let q = (value.clamp(0.0, 1.0) * f64::from(u16::MAX)).round() as u16;
                out.write_all(&q.to_le_bytes())
            }
        }
    }

    #[inline]
    pub(crate) fn decode(self, bytes: &[u8]) -> f64 {
        match self {
            ValueType::F32 => {
                f64::from(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            }
            ValueType::U16 => {
                f64::from(u16::from_le_bytes([bytes[0], bytes[1]])) / f64::from(u16::MAX)
            }
        }
    }
}

impl std::str::FromStr for ValueType {
    type Err = String;

    /// Parses a name ([`ValueType::name`]), for the command line.
    fn from_str(name: &str) -> Result<ValueType, String> {
        ValueType::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = ValueType::ALL.iter().map(|t| t.name()).collect();
            format!("unknown value type {name:?}; one of {}", names.join(", "))
        })
    }
}

impl std::fmt::Display for ValueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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
    /// How the values are stored.
    pub value_type: ValueType,
}

#[cfg(not(target_arch = "wasm32"))]
fn header_json(rules: &RuleSet, layers: &LayerSet, info: &TableInfo) -> Vec<u8> {
    let mut fields = json!({ "rules": rules.name(), "spec": rules.spec(), "index": INDEX_ID });
    if !layers.is_whole() {
        let pairs: Vec<[u8; 2]> = layers
            .pairs()
            .iter()
            .map(|pair| [pair.mover, pair.opponent])
            .collect();
        fields["layers"] = json!(pairs);
    }
    header_with(fields, info)
}

/// The layers a table's header says it holds: every layer when it names
/// none, else the pairs it lists, which must be a closed set.
fn header_layers(header: &serde_json::Value, pieces: u8) -> Result<LayerSet, String> {
    let Some(listed) = header.get("layers") else {
        return Ok(LayerSet::whole(pieces));
    };
    let pairs: Vec<[u8; 2]> = serde_json::from_value(listed.clone())
        .map_err(|e| format!("\"layers\" is not a list of [a, b] pairs: {e}"))?;
    LayerSet::from_pairs(pieces, pairs.iter().map(|&[a, b]| LayerPair::new(a, b)))
        .map_err(|e| format!("\"layers\": {e}"))
}

#[cfg(not(target_arch = "wasm32"))]
/// A header: `fields` (what the values are: rule set, index layout), then
/// what every table file says of its values (count, value type and its
/// rounding, residual, tolerance, solver version).
pub(crate) fn header_with(mut fields: serde_json::Value, info: &TableInfo) -> Vec<u8> {
    let common = json!({
        "states": info.states,
        "value_type": info.value_type.name(),
        "rounding_error": info.value_type.rounding_error(),
        "residual": info.residual,
        "tolerance": info.tolerance,
        "solver": concat!("sawah-ai ", env!("CARGO_PKG_VERSION")),
    });
    if let (Some(fields), serde_json::Value::Object(common)) = (fields.as_object_mut(), common) {
        fields.extend(common);
    }
    fields.to_string().into_bytes()
}

pub(crate) fn data_offset(header_len: usize) -> usize {
    (16 + header_len).div_ceil(8) * 8
}

#[cfg(not(target_arch = "wasm32"))]
/// Writes a table atomically: `values` (f64, in index order) are stored
/// as `info.value_type`.
pub fn write_table(
    path: &Path,
    rules: &RuleSet,
    values: &[f64],
    info: &TableInfo,
) -> Result<(), TableError> {
    write_table_from(path, rules, values.iter().copied(), info)
}

#[cfg(not(target_arch = "wasm32"))]
/// [`write_table`] from any stream of values in index order (for example
/// another table's, to convert it); `info.states` of them are written.
pub fn write_table_from(
    path: &Path,
    rules: &RuleSet,
    values: impl IntoIterator<Item = f64>,
    info: &TableInfo,
) -> Result<(), TableError> {
    let whole = LayerSet::whole(rules.pieces());
    write_table_file(path, &header_json(rules, &whole, info), values, info)
}

#[cfg(not(target_arch = "wasm32"))]
/// [`write_table_from`] for a partial solve: the values of the layers of
/// `layers` alone, in the order of [`PositionIndex::of_layers`].
pub fn write_partial_table_from(
    path: &Path,
    rules: &RuleSet,
    layers: &LayerSet,
    values: impl IntoIterator<Item = f64>,
    info: &TableInfo,
) -> Result<(), TableError> {
    write_table_file(path, &header_json(rules, layers, info), values, info)
}

#[cfg(not(target_arch = "wasm32"))]
/// Writes a table file atomically: the magic, the format version,
/// `header`, then `info.states` of `values` as `info.value_type` (fewer is
/// an error).
pub(crate) fn write_table_file(
    path: &Path,
    header: &[u8],
    values: impl IntoIterator<Item = f64>,
    info: &TableInfo,
) -> Result<(), TableError> {
    let shown = path.display().to_string();
    let io_err = |source| TableError::Io {
        path: shown.clone(),
        source,
    };
    let padding = data_offset(header.len()) - 16 - header.len();
    // Streamed: a 7-piece table is 2 GB, which must not be held twice.
    crate::files::write_atomically_with(path, |out| {
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&(header.len() as u32).to_le_bytes())?;
        out.write_all(header)?;
        out.write_all(&vec![0; padding])?;
        let mut written = 0u64;
        for v in values.into_iter().take(info.states as usize) {
            info.value_type.encode(v, out)?;
            written += 1;
        }
        if written != info.states {
            return Err(io::Error::other(format!(
                "{written} values for a table of {} states",
                info.states
            )));
        }
        Ok(())
    })
    .map_err(io_err)
}

/// The bytes of a table: memory-mapped from a file natively, or held in
/// memory (handed over by a page, where there is no file system).
pub(crate) enum TableBytes {
    #[cfg(not(target_arch = "wasm32"))]
    Mapped(memmap2::Mmap),
    Shared(std::sync::Arc<[u8]>),
}

impl std::ops::Deref for TableBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(not(target_arch = "wasm32"))]
            TableBytes::Mapped(map) => map,
            TableBytes::Shared(bytes) => bytes,
        }
    }
}

/// A table file, memory-mapped after checking it is a regular file.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn map_file(path: &Path) -> Result<TableBytes, TableError> {
    let shown = path.display().to_string();
    let io_error = |source| TableError::Io {
        path: shown.clone(),
        source,
    };
    let file = crate::files::open_regular(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::Other => TableError::Format {
            path: shown.clone(),
            message: e.to_string(),
        },
        _ => io_error(e),
    })?;
    // Safety: the map is read-only; a file changed underneath by another
    // process would show changed values, never unsafety in this process
    // beyond that (the same caveat as every memory-mapped reader).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_error)?;
    Ok(TableBytes::Mapped(map))
}

/// Where a table's values start and what its header says of them, after
/// checking what every table must hold: a value type this build reads,
/// `states` values (what the reader's index needs; `whose` names that
/// index in the message), and exactly the bytes they take.
pub(crate) fn checked_values(
    bytes: &[u8],
    header_len: usize,
    header: &serde_json::Value,
    states: u64,
    whose: &str,
) -> Result<(usize, TableInfo), String> {
    let value_type = header["value_type"]
        .as_str()
        .and_then(ValueType::from_name)
        .ok_or_else(|| {
            format!(
                "value type {}; this build reads f32 or u16",
                header["value_type"]
            )
        })?;
    let found = header["states"].as_u64().unwrap_or(0);
    if found != states {
        return Err(format!("{found} states; {whose} has {states}"));
    }
    let offset = data_offset(header_len);
    let expected = offset as u64 + value_type.bytes() as u64 * states;
    if bytes.len() as u64 != expected {
        return Err(format!(
            "{} bytes; a table of {states} {value_type} values has {expected}",
            bytes.len()
        ));
    }
    let info = TableInfo {
        states,
        residual: header["residual"].as_f64().unwrap_or(f64::NAN),
        tolerance: header["tolerance"].as_f64().unwrap_or(f64::NAN),
        value_type,
    };
    Ok((offset, info))
}

/// The header of a table file: its length and its JSON, after checking
/// the magic and the format version.
pub(crate) fn read_header(map: &[u8]) -> Result<(usize, serde_json::Value), String> {
    if map.len() < 16 || &map[..8] != MAGIC {
        return Err("not a sawah table (bad magic)".into());
    }
    let version = u32::from_le_bytes([map[8], map[9], map[10], map[11]]);
    if version != FORMAT_VERSION {
        return Err(format!(
            "format version {version}; this build reads version {FORMAT_VERSION}"
        ));
    }
    let header_len = u32::from_le_bytes([map[12], map[13], map[14], map[15]]) as usize;
    // Checked: on 32-bit targets (the browser) 16 + a huge length wraps.
    let header_end = 16usize
        .checked_add(header_len)
        .filter(|&end| end <= map.len())
        .ok_or_else(|| "the file ends inside its header".to_string())?;
    let header = serde_json::from_slice(&map[16..header_end])
        .map_err(|e| format!("header is not JSON: {e}"))?;
    Ok((header_len, header))
}

/// A solved table, checked against its rule set: whole, or partial (the
/// late layers alone; see the module documentation).
pub struct Table {
    bytes: TableBytes,
    offset: usize,
    index: PositionIndex,
    layers: LayerSet,
    info: TableInfo,
    rules: String,
    spec: RuleSpec,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("info", &self.info).finish()
    }
}

impl Table {
    /// Opens a table file, memory-mapped, and checks it belongs to `rules`
    /// (same rule set id and full description, same index layout and size).
    ///
    /// # Examples
    ///
    /// A table of a tiny rule set (every value 0.5 here, where the solver
    /// would write exact ones), written and read back; opened for another
    /// rule set, it is refused:
    ///
    /// ```
    /// use sawah_agents::table::{Table, TableInfo, ValueType, write_table};
    /// use sawah_engine::race::{self, PositionIndex};
    ///
    /// let rules = race::preset("ur-2").unwrap();
    /// let states = PositionIndex::new(&rules).len();
    /// let info = TableInfo { states, residual: 0.0, tolerance: 1e-10, value_type: ValueType::F32 };
    /// let path = std::env::temp_dir().join(format!("doc-ur-2-{}.table", std::process::id()));
    /// write_table(&path, &rules, &vec![0.5; states as usize], &info).unwrap();
    ///
    /// let table = Table::open(&path, &rules).unwrap();
    /// assert_eq!(table.info().states, states);
    /// assert_eq!(table.value(&rules.start()), 0.5);
    ///
    /// let other = race::preset("ur-3").unwrap();
    /// assert!(Table::open(&path, &other).is_err());
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(path: &Path, rules: &RuleSet) -> Result<Table, TableError> {
        Table::open_partial(path, rules)?.whole(&path.display().to_string())
    }

    /// Opens a table that may be partial (holding the late layers alone),
    /// checked as [`Table::open`] checks a whole one; [`Table::get`] reads
    /// it.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_partial(path: &Path, rules: &RuleSet) -> Result<Table, TableError> {
        let shown = path.display().to_string();
        Table::from_table_bytes(map_file(path)?, &shown, rules)
    }

    /// This table if it holds every layer, else the error that says it is
    /// partial.
    fn whole(self, shown: &str) -> Result<Table, TableError> {
        if self.layers.is_whole() {
            return Ok(self);
        }
        Err(TableError::Format {
            path: shown.to_string(),
            message: format!(
                "a partial table ({}, {} positions): it holds the late layers alone, where exact values are used beside a network (training, puzzles), not for perfect play",
                self.layers, self.info.states
            ),
        })
    }

    /// A table from bytes in memory (the contents of a table file), checked
    /// as [`Table::open`] checks a file; errors call it `name`.
    pub fn from_bytes(
        bytes: std::sync::Arc<[u8]>,
        name: &str,
        rules: &RuleSet,
    ) -> Result<Table, TableError> {
        Table::from_table_bytes(TableBytes::Shared(bytes), name, rules)?.whole(name)
    }

    fn from_table_bytes(
        map: TableBytes,
        shown: &str,
        rules: &RuleSet,
    ) -> Result<Table, TableError> {
        let format = |message: String| TableError::Format {
            path: shown.to_string(),
            message,
        };
        let (header_len, header) = read_header(&map).map_err(format)?;
        let found = header["rules"].as_str().unwrap_or_default().to_string();
        let spec: Option<RuleSpec> = serde_json::from_value(header["spec"].clone()).ok();
        if found != rules.name() || spec.as_ref() != Some(rules.spec()) {
            return Err(TableError::WrongRules {
                path: shown.to_string(),
                expected: rules.name().to_string(),
                found,
            });
        }
        if header["index"] != INDEX_ID {
            return Err(format(format!(
                "index {}; this build reads {INDEX_ID}",
                header["index"]
            )));
        }
        let layers = header_layers(&header, rules.pieces()).map_err(format)?;
        let index = PositionIndex::of_layers(rules, &layers);
        let whose = if layers.is_whole() {
            "the rule set"
        } else {
            "its layers"
        };
        let (offset, info) =
            checked_values(&map, header_len, &header, index.len(), whose).map_err(format)?;
        Ok(Table {
            bytes: map,
            offset,
            index,
            layers,
            info,
            rules: rules.name().to_string(),
            spec: rules.spec().clone(),
        })
    }

    /// The name of the rule set in a table's header (to know which rule set
    /// a table handed over without one belongs to), or why the bytes are
    /// not a table this build reads.
    pub fn rules_in_header(bytes: &[u8]) -> Result<String, String> {
        let (_, header) = read_header(bytes)?;
        header["rules"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| "the header names no rule set".to_string())
    }

    /// The name of the rule set this table was opened for.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    /// Whether this table was opened for `rules` (same name and description).
    pub fn belongs_to(&self, rules: &RuleSet) -> bool {
        self.rules == rules.name() && &self.spec == rules.spec()
    }

    /// What the table says about itself.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// The win probability for the side to move (exact up to the value
    /// type's [`ValueType::rounding_error`] plus the solver's residual).
    ///
    /// # Panics
    ///
    /// On a partial table ([`Table::open_partial`]), for a position outside
    /// its layers: read those with [`Table::get`].
    #[inline]
    pub fn value(&self, position: &Position) -> f64 {
        self.value_at(self.index.index(position))
    }

    /// The win probability for the side to move where the table holds the
    /// position (always, for a whole table), else `None`.
    #[inline]
    pub fn get(&self, position: &Position) -> Option<f64> {
        self.index
            .holds(position)
            .then(|| self.value_at(self.index.index(position)))
    }

    /// The layers the table holds.
    pub fn layers(&self) -> &LayerSet {
        &self.layers
    }

    /// Whether the table holds every layer.
    pub fn is_whole(&self) -> bool {
        self.layers.is_whole()
    }

    /// The value stored for index `i` (below `info().states`).
    #[inline]
    fn value_at(&self, i: u64) -> f64 {
        let value_type = self.info.value_type;
        let at = self.offset + value_type.bytes() * i as usize;
        value_type.decode(&self.bytes[at..])
    }

    /// Every stored value, in index order.
    pub fn values(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.info.states).map(|i| self.value_at(i))
    }
}
