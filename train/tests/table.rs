//! Solved tables on disk and the perfect agent that plays from them.

use sawah_agents::AgentSpec;
use sawah_agents::perfect::{loss, move_value};
use sawah_agents::table::{Table, TableError, TableInfo, write_table};
use sawah_engine::race;
use sawah_train::solver::{Solution, SolveOptions, solve};
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
