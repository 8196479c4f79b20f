//! The table loader against damaged files: whatever the bytes, opening a
//! table gives a table whose every value can be read, or an error naming
//! the file; never a panic.

use proptest::prelude::*;
use sawah_agents::table::{Table, TableInfo, ValueType, write_table};
use sawah_engine::race::{self, PositionIndex};
use std::path::PathBuf;

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sawah-table-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A table of ur-1 (247 positions) with made-up values, as bytes.
fn table_bytes(value_type: ValueType) -> Vec<u8> {
    let rules = race::preset("ur-1").unwrap();
    let states = PositionIndex::new(&rules).len();
    let values: Vec<f64> = (0..states).map(|i| i as f64 / states as f64).collect();
    let info = TableInfo {
        states,
        residual: 1e-11,
        tolerance: 1e-10,
        value_type,
    };
    let path = folder().join(format!("source-{value_type}.sawah"));
    write_table(&path, &rules, &values, &info).unwrap();
    std::fs::read(&path).unwrap()
}

/// Opens `bytes` as an ur-1 table; if it opens, reads every value.
fn open_and_read(bytes: &[u8], name: &str) -> Result<(), String> {
    let rules = race::preset("ur-1").unwrap();
    let path = folder().join(name);
    std::fs::write(&path, bytes).unwrap();
    match Table::open(&path, &rules) {
        Ok(table) => {
            let index = PositionIndex::new(&rules);
            for i in 0..index.len() {
                let value = table.value(&index.position(i).unwrap());
                assert!(!value.is_nan() || table.info().value_type == ValueType::F32);
            }
            assert_eq!(table.values().count() as u64, index.len());
            Ok(())
        }
        Err(error) => {
            let message = error.to_string();
            assert!(message.contains(name), "{message}");
            Err(message)
        }
    }
}

#[test]
fn both_value_types_open_and_hold_what_was_written() {
    for value_type in ValueType::ALL {
        let bytes = table_bytes(value_type);
        open_and_read(&bytes, &format!("clean-{value_type}.sawah")).unwrap();
        let rules = race::preset("ur-1").unwrap();
        let table =
            Table::open(&folder().join(format!("clean-{value_type}.sawah")), &rules).unwrap();
        let states = table.info().states as f64;
        for (i, value) in table.values().enumerate() {
            let written = i as f64 / states;
            assert!((value - written).abs() <= value_type.rounding_error() + 1e-15);
        }
    }
}

proptest! {
    /// Cut anywhere: refused (the size no longer matches), never a panic.
    #[test]
    fn a_cut_table_is_refused(cut in 0usize..100_000, u16_values in any::<bool>()) {
        let value_type = if u16_values { ValueType::U16 } else { ValueType::F32 };
        let bytes = table_bytes(value_type);
        let cut = cut % bytes.len();
        let refused = open_and_read(&bytes[..cut], &format!("cut-{cut}.sawah")).is_err();
        prop_assert!(refused);
    }

    /// One byte changed anywhere (header or values): opens or is refused,
    /// never a panic.
    #[test]
    fn a_changed_byte_never_panics(at in 0usize..4000, byte in any::<u8>(), u16_values in any::<bool>()) {
        let value_type = if u16_values { ValueType::U16 } else { ValueType::F32 };
        let mut bytes = table_bytes(value_type);
        let at = at % bytes.len();
        bytes[at] = byte;
        let _ = open_and_read(&bytes, &format!("changed-{at}.sawah"));
    }

    /// Arbitrary bytes, with or without a valid magic: refused.
    #[test]
    fn arbitrary_bytes_are_refused(mut bytes in proptest::collection::vec(any::<u8>(), 0..300), magic in any::<bool>()) {
        if magic && bytes.len() >= 12 {
            bytes[..8].copy_from_slice(b"SAWAHTBL");
            bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        }
        let refused = open_and_read(&bytes, "arbitrary.sawah").is_err();
        prop_assert!(refused);
    }
}
