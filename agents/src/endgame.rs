//! Senet endgame tables: the exact win probability of the side to throw in
//! every Senet position with at most `k` pieces per side on the board
//! (solved by `sawah solve --rules senet --pieces K`).
//!
//! The file layout is the solved tables' ([`crate::table`]): magic
//! `SAWAHTBL`, format version, a JSON header, then the values in the order
//! of [`EndgameIndex`]. The header says `"rules": "senet"`, `"index":
//! "senet-endgame-v1"` and `"pieces": k`; a reader refuses any other rule
//! set, index or size.

use crate::evaluator::Evaluator;
use crate::table::{TableBytes, TableError, TableInfo, checked_values, read_header};
#[cfg(not(target_arch = "wasm32"))]
use crate::table::{header_with, write_table_file};
use sawah_engine::senet::endgame::EndgameIndex;
use sawah_engine::senet::{Position, Senet};
#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;

/// The index layout an endgame table's values follow.
pub const ENDGAME_INDEX_ID: &str = "senet-endgame-v1";

#[cfg(not(target_arch = "wasm32"))]
/// Writes an endgame table atomically: `values` (f64, in the order of
/// `index`) stored as `info.value_type`.
pub fn write_endgame_table(
    path: &Path,
    index: &EndgameIndex,
    values: &[f64],
    info: &TableInfo,
) -> Result<(), TableError> {
    let shown = path.display().to_string();
    if values.len() as u64 != index.len() || info.states != index.len() {
        return Err(TableError::Format {
            path: shown,
            message: format!(
                "{} values for an index of {} endgames",
                values.len(),
                index.len()
            ),
        });
    }
    let header = header_with(
        serde_json::json!({
            "rules": sawah_engine::senet::NAME,
            "index": ENDGAME_INDEX_ID,
            "pieces": index.pieces(),
        }),
        info,
    );
    write_table_file(path, &header, values.iter().copied(), info)
}

/// A Senet endgame table, checked on opening.
pub struct EndgameTable {
    bytes: TableBytes,
    offset: usize,
    index: EndgameIndex,
    info: TableInfo,
}

impl std::fmt::Debug for EndgameTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndgameTable")
            .field("pieces", &self.index.pieces())
            .field("info", &self.info)
            .finish()
    }
}

impl EndgameTable {
    /// Opens an endgame table file, memory-mapped.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(path: &Path) -> Result<EndgameTable, TableError> {
        let shown = path.display().to_string();
        EndgameTable::from_table_bytes(crate::table::map_file(path)?, &shown)
    }

    /// An endgame table from bytes in memory; errors call it `name`.
    pub fn from_bytes(bytes: std::sync::Arc<[u8]>, name: &str) -> Result<EndgameTable, TableError> {
        EndgameTable::from_table_bytes(TableBytes::Shared(bytes), name)
    }

    fn from_table_bytes(bytes: TableBytes, shown: &str) -> Result<EndgameTable, TableError> {
        let format = |message: String| TableError::Format {
            path: shown.to_string(),
            message,
        };
        let (header_len, header) = read_header(&bytes).map_err(format)?;
        let found = header["rules"].as_str().unwrap_or_default();
        if found != sawah_engine::senet::NAME {
            return Err(TableError::WrongRules {
                path: shown.to_string(),
                expected: sawah_engine::senet::NAME.to_string(),
                found: found.to_string(),
            });
        }
        if header["index"] != ENDGAME_INDEX_ID {
            return Err(format(format!(
                "index {}; a Senet endgame table has index {ENDGAME_INDEX_ID}",
                header["index"]
            )));
        }
        let pieces = header["pieces"].as_u64().unwrap_or(0);
        let index = u8::try_from(pieces)
            .ok()
            .and_then(EndgameIndex::new)
            .ok_or_else(|| format(format!("{pieces} pieces per side; 1 to 5 are possible")))?;
        let whose = format!("the index of {pieces} pieces per side");
        let (offset, info) =
            checked_values(&bytes, header_len, &header, index.len(), &whose).map_err(format)?;
        Ok(EndgameTable {
            bytes,
            offset,
            index,
            info,
        })
    }

    /// The most pieces per side on the board the table covers (`k`).
    pub fn pieces(&self) -> u8 {
        self.index.pieces()
    }

    /// What the table says about itself.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// The win probability of the side to throw, when the position is an
    /// endgame of the table (a game going on with 1 to `k` pieces per side
    /// on the board); `None` otherwise.
    #[inline]
    pub fn value(&self, position: &Position) -> Option<f64> {
        let i = self.index.index_of(position)?;
        let value_type = self.info.value_type;
        let at = self.offset + value_type.bytes() * i as usize;
        Some(value_type.decode(&self.bytes[at..]))
    }
}

/// An evaluation that is exact where an endgame table covers the position
/// and `inner`'s elsewhere: the leaf values of a search that reaches the
/// endgame.
pub struct EndgameEvaluator<E> {
    table: std::sync::Arc<EndgameTable>,
    inner: E,
}

impl<E> EndgameEvaluator<E> {
    /// `inner`, exact where `table` applies.
    pub fn new(table: std::sync::Arc<EndgameTable>, inner: E) -> EndgameEvaluator<E> {
        EndgameEvaluator { table, inner }
    }
}

impl<E: Evaluator<Senet>> Evaluator<Senet> for EndgameEvaluator<E> {
    #[inline]
    fn evaluate(&self, game: &Senet, position: &Position) -> f64 {
        self.table
            .value(position)
            .unwrap_or_else(|| self.inner.evaluate(game, position))
    }

    fn worth_remembering(&self) -> bool {
        self.inner.worth_remembering()
    }
}

/// The mover's exact win probability after each of `moves` (after the pass
/// when there are none, as the only value), for a position the table
/// covers (so does every successor: pieces only leave the board).
pub fn move_values(
    senet: &Senet,
    table: &EndgameTable,
    position: &Position,
    moves: &[sawah_engine::senet::Move],
) -> Option<Vec<f64>> {
    use sawah_engine::Game;
    let mover = position.turn();
    let worth = |next: &Position| match senet.winner(next) {
        Some(winner) => Some(f64::from(u8::from(winner == mover))),
        None if next.turn() == mover => table.value(next),
        None => table.value(next).map(|v| 1.0 - v),
    };
    if moves.is_empty() {
        return worth(&Game::pass(senet, position)).map(|v| vec![v]);
    }
    moves
        .iter()
        .map(|&mv| worth(&Game::apply(senet, position, mv).position))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::ValueType;
    use sawah_engine::senet::endgame::Endgame;

    /// A fresh folder of this test process.
    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sawah-endgame-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn info(index: &EndgameIndex) -> TableInfo {
        TableInfo {
            states: index.len(),
            residual: 0.0,
            tolerance: 1e-10,
            value_type: ValueType::F32,
        }
    }

    #[test]
    fn values_come_back_by_position() {
        let path = folder("values").join("senet-1.sawah");
        let index = EndgameIndex::new(1).unwrap();
        let values: Vec<f64> = (0..index.len())
            .map(|i| i as f64 / index.len() as f64)
            .collect();
        write_endgame_table(&path, &index, &values, &info(&index)).unwrap();
        let table = EndgameTable::open(&path).unwrap();
        assert_eq!(table.pieces(), 1);
        for i in [0, 17, index.len() - 1] {
            let position = index.endgame(i).position();
            let got = table.value(&position).unwrap();
            assert!((got - values[i as usize]).abs() < 1e-7);
        }
        let senet = sawah_engine::senet::Senet::new();
        assert_eq!(table.value(&senet.start()), None);
        let two = Endgame {
            mover: 1 << 3 | 1 << 4,
            other: 1 << 9,
        };
        assert_eq!(table.value(&two.position()), None);
    }

    #[test]
    fn damaged_or_foreign_files_are_refused() {
        let path = folder("refused").join("senet-1.sawah");
        let index = EndgameIndex::new(1).unwrap();
        let values = vec![0.5; index.len() as usize];
        write_endgame_table(&path, &index, &values, &info(&index)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let open = |b: &[u8]| EndgameTable::from_bytes(b.into(), "t").map(|_| ());
        assert!(open(&bytes).is_ok());
        let short = open(&bytes[..bytes.len() - 1]).unwrap_err().to_string();
        assert!(short.contains("bytes"), "{short}");
        // Same-length edits of the header, byte for byte.
        let edited = |from: &[u8], to: &[u8]| {
            let mut b = bytes.clone();
            let at = b.windows(from.len()).position(|w| w == from).unwrap();
            b[at..at + from.len()].copy_from_slice(to);
            b
        };
        let err = open(&edited(b"\"senet\"", b"\"ur\"   "))
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"ur\""), "{err}");
        let err = open(&edited(b"endgame-v1", b"endgame-v9"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("senet-endgame-v9"), "{err}");
        let wrong = write_endgame_table(&path, &index, &values[1..], &info(&index));
        assert!(wrong.is_err());
        assert!(open(b"not a table").is_err());
    }
}
