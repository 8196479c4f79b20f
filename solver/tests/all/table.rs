//! Solved tables on disk and the perfect agent that plays from them.

use sawah_agents::AgentSpec;
use sawah_agents::perfect::{loss, move_value};
use sawah_agents::table::{Table, TableError, TableInfo, ValueType, write_table};
use sawah_engine::race;
use sawah_solver::{Solution, SolveOptions, solve};
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sawah-table-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("table.sawah")
}

/// Solves a preset and writes its table to a fresh temporary folder.
fn solved(name: &str, folder: &str) -> (race::RuleSet, Solution, PathBuf, TableInfo) {
    let rules = race::preset(name).unwrap();
    let solution = solve(&rules, SolveOptions::default(), |_| {}).unwrap();
    let path = temp(folder);
    let info = TableInfo {
        states: solution.values.len() as u64,
        residual: solution.residual,
        tolerance: 1e-10,
        value_type: ValueType::F32,
    };
    write_table(&path, &rules, &solution.values, &info).unwrap();
    (rules, solution, path, info)
}

#[test]
fn a_table_round_trips_and_refuses_what_is_not_its_own() {
    let (rules, solution, path, info) = solved("ur-2", "round-trip");
    let table = Table::open(&path, &rules).unwrap();
    assert_eq!(table.info(), &info);
    for i in (0..solution.index.len()).step_by(13) {
        let position = solution.index.position(i).unwrap();
        assert_eq!(
            table.value(&position),
            f64::from(solution.values[i as usize] as f32)
        );
        assert!((table.value(&position) - solution.values[i as usize]).abs() < 1e-7);
    }
    // Another rule set: refused by name.
    let other = race::preset("masters-2").unwrap();
    assert!(matches!(
        Table::open(&path, &other),
        Err(TableError::WrongRules { .. })
    ));
    // A damaged file: refused with the reason.
    let bytes = std::fs::read(&path).unwrap();
    let damaged = temp("damaged");
    std::fs::write(&damaged, &bytes[..bytes.len() - 4]).unwrap();
    let err = Table::open(&damaged, &rules).unwrap_err().to_string();
    assert!(err.contains("bytes"), "{err}");
    let mut bad_magic = bytes.clone();
    bad_magic[0] = b'X';
    std::fs::write(&damaged, &bad_magic).unwrap();
    assert!(
        Table::open(&damaged, &rules)
            .unwrap_err()
            .to_string()
            .contains("magic")
    );
    let mut bad_version = bytes;
    bad_version[8] = 9;
    std::fs::write(&damaged, &bad_version).unwrap();
    assert!(
        Table::open(&damaged, &rules)
            .unwrap_err()
            .to_string()
            .contains("version")
    );
    assert!(matches!(
        Table::open(&temp("missing").with_extension("none"), &rules),
        Err(TableError::Io { .. })
    ));
    // No temporary file is left behind by the atomic write.
    let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
    assert_eq!(leftovers, 1);
}

#[test]
fn a_u16_table_is_half_the_size_and_within_its_rounding_bound() {
    let (rules, solution, path, info) = solved("ur-2", "u16");
    let small = path.with_extension("u16");
    let info = TableInfo {
        value_type: ValueType::U16,
        ..info
    };
    write_table(&small, &rules, &solution.values, &info).unwrap();
    let table = Table::open(&small, &rules).unwrap();
    assert_eq!(table.info(), &info);
    let bound = ValueType::U16.rounding_error();
    assert!((bound - 1.0 / 131_070.0).abs() < 1e-15);
    let mut largest: f64 = 0.0;
    for (i, stored) in table.values().enumerate() {
        let exact = solution.values[i];
        largest = largest.max((stored - exact).abs());
        // A multiple of the quantisation step, and the nearest one.
        let q = stored * 65_535.0;
        assert!((q - q.round()).abs() < 1e-6);
        assert!((stored - exact).abs() <= bound + 1e-15, "index {i}");
    }
    // Rounding really happened (the bound is tight, not vacuous).
    assert!(largest > bound / 2.0, "largest {largest}");
    let position = solution.index.position(1234).unwrap();
    assert_eq!(table.value(&position), table.values().nth(1234).unwrap());
    // Two bytes a value fewer than the f32 table (headers differ a little).
    let f32_len = std::fs::metadata(&path).unwrap().len();
    let u16_len = std::fs::metadata(&small).unwrap().len();
    let states = solution.values.len() as u64;
    assert!((f32_len - u16_len).abs_diff(2 * states) < 64);
    // Cut short: refused, naming the value type.
    let bytes = std::fs::read(&small).unwrap();
    std::fs::write(&small, &bytes[..bytes.len() - 2]).unwrap();
    let err = Table::open(&small, &rules).unwrap_err().to_string();
    assert!(err.contains("u16 values"), "{err}");
    // An unknown value type: refused with what this build reads.
    let mut patched = bytes.clone();
    let at = bytes.windows(5).position(|w| w == b"\"u16\"").unwrap();
    patched[at + 1..at + 4].copy_from_slice(b"i16");
    std::fs::write(&small, &patched).unwrap();
    let err = Table::open(&small, &rules).unwrap_err().to_string();
    assert!(err.contains("f32 or u16"), "{err}");
}

#[test]
fn the_perfect_agent_plays_the_best_move_and_losses_are_measured() {
    let (rules, solution, path, _) = solved("masters-2", "perfect");
    let table = Table::open(&path, &rules).unwrap();
    let spec = AgentSpec::parse(&format!("perfect:table={}", path.display()), "masters-2").unwrap();
    let mut agent = spec.build(&rules).unwrap();
    let mut checked = 0;
    for i in (0..solution.index.len()).step_by(29) {
        let position = solution.index.position(i).unwrap();
        if rules.winner(&position).is_some() {
            continue;
        }
        for roll in 1..=4 {
            let moves = rules.legal_moves(&position, roll);
            if moves.len() < 2 {
                continue;
            }
            let chosen = agent.choose(&rules, &position, roll, &moves);
            assert_eq!(loss(&rules, &table, &position, roll, chosen), 0.0);
            let best = move_value(&rules, &table, &position, chosen);
            for &mv in moves.iter() {
                let l = loss(&rules, &table, &position, roll, mv);
                assert!((l - (best - move_value(&rules, &table, &position, mv))).abs() < 1e-12);
            }
            checked += 1;
        }
    }
    assert!(checked > 100);
    // The agent's evaluation of the start is the table's.
    let v = agent.evaluate(&rules, &rules.start()).unwrap();
    assert!((v - solution.value(&rules.start())).abs() < 1e-7);
    // Without a table, or for Senet, a clear error.
    let err = AgentSpec::parse("perfect", "masters-2")
        .unwrap()
        .build(&rules)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("sawah solve"), "{err}");
    let senet = sawah_engine::senet::Senet::new();
    let err = spec.build(&senet).err().unwrap().to_string();
    assert!(err.contains("senet has none"), "{err}");
}
