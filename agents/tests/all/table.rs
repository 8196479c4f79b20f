//! The table loader against damaged files: whatever the bytes, opening a
//! table gives a table whose every value can be read, or an error naming
//! the file; never a panic.

use proptest::prelude::*;
use sawah_agents::table::{Table, TableInfo, ValueType, write_partial_table_from, write_table};
use sawah_engine::Player;
use sawah_engine::race::{self, LayerPair, LayerSet, PositionIndex};
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

/// A partial table of ur-2 (the layers with at least 2 pieces borne off)
/// with each position's value from its index in the whole table: written,
/// opened by `open_partial`, read by `get` where it holds a position and
/// `None` elsewhere; `open` refuses it, naming what it is.
#[test]
fn a_partial_table_holds_its_layers_and_is_refused_where_a_whole_one_is_needed() {
    let rules = race::preset("ur-2").unwrap();
    let whole = PositionIndex::new(&rules);
    let layers = LayerSet::from_diagonal(2, 2);
    let part = PositionIndex::of_layers(&rules, &layers);
    let value_of = |i: u64| i as f64 / whole.len() as f64;
    let values: Vec<f64> = (0..part.len())
        .map(|j| value_of(whole.index(&part.position(j).unwrap())))
        .collect();
    let info = TableInfo {
        states: part.len(),
        residual: 0.0,
        tolerance: 1e-10,
        value_type: ValueType::F32,
    };
    let path = folder().join("partial-ur-2.sawah");
    write_partial_table_from(&path, &rules, &layers, values, &info).unwrap();
    let table = Table::open_partial(&path, &rules).unwrap();
    assert!(!table.is_whole());
    assert_eq!(table.layers(), &layers);
    let mut held = 0;
    for i in 0..whole.len() {
        let position = whole.position(i).unwrap();
        let [light, dark] =
            [Player::Light, Player::Dark].map(|player| position.side(player).scored());
        match table.get(&position) {
            Some(value) => {
                held += 1;
                assert!(layers.contains(light, dark));
                assert!((value - value_of(i)).abs() < 1e-7);
            }
            None => assert!(!layers.contains(light, dark)),
        }
    }
    assert_eq!(held, part.len());
    let refused = Table::open(&path, &rules).unwrap_err().to_string();
    assert!(
        refused.contains("a partial table (the layers with at least 2 pieces borne off"),
        "{refused}"
    );
    // A whole table opens either way, and holds every position.
    let whole_path = folder().join("whole-ur-2.sawah");
    let all = TableInfo {
        states: whole.len(),
        ..info
    };
    write_table(&whole_path, &rules, &vec![0.5; whole.len() as usize], &all).unwrap();
    let table = Table::open_partial(&whole_path, &rules).unwrap();
    assert!(table.is_whole() && table.get(&rules.start()) == Some(0.5));
}

/// A header's `layers` that is not a closed set of the rule set's pairs
/// is refused with what is wrong, never a panic.
#[test]
fn a_partial_tables_layers_are_checked() {
    let rules = race::preset("ur-2").unwrap();
    let info = TableInfo {
        states: 0,
        residual: 0.0,
        tolerance: 1e-10,
        value_type: ValueType::F32,
    };
    let layers = LayerSet::from_pairs(2, [LayerPair::new(1, 1)]).unwrap();
    let count = PositionIndex::of_layers(&rules, &layers).len();
    let path = folder().join("partial-(1,1).sawah");
    write_partial_table_from(
        &path,
        &rules,
        &layers,
        vec![0.5; count as usize],
        &TableInfo {
            states: count,
            ..info
        },
    )
    .unwrap();
    let good = std::fs::read(&path).unwrap();
    for (from, to) in [
        ("[[1,1]]", "[[0,1]]"),
        ("[[1,1]]", "[[1,2]]"),
        ("[[1,1]]", "[[1]]"),
        ("[[1,1]]", "\"all\""),
    ] {
        // Padded with spaces to the same length, so the header's length holds.
        let to = format!("{to:<width$}", width = from.len());
        let at = good
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .unwrap();
        let mut bytes = good.clone();
        bytes[at..at + from.len()].copy_from_slice(to.as_bytes());
        let bad = folder().join("partial-bad.sawah");
        std::fs::write(&bad, &bytes).unwrap();
        let error = Table::open_partial(&bad, &rules).unwrap_err().to_string();
        assert!(error.contains("\"layers\""), "{to}: {error}");
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
