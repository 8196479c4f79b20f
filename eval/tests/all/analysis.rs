//! The loss against perfect play: zero for perfect play itself, positive
//! for random play, and an error that says why when it cannot be measured.

use sawah_agents::AgentSpec;
use sawah_agents::table::{Table, TableInfo, ValueType, write_table};
use sawah_engine::race::{self, PositionIndex};
use sawah_eval::study::analysis::{LossError, loss_against_perfect};

/// A table for `preset` with made-up values: perfect play is the best move
/// by them, and the loss is measured by them too.
fn table_for(preset: &str, name: &str) -> (race::RuleSet, Table, String) {
    let rules = race::preset(preset).unwrap();
    let index = PositionIndex::new(&rules);
    let values: Vec<f64> = (0..index.len()).map(|i| (i % 89) as f64 / 88.0).collect();
    let info = TableInfo {
        states: index.len(),
        residual: 0.0,
        tolerance: 0.0,
        value_type: ValueType::F32,
    };
    let dir = std::env::temp_dir().join(format!("sawah-eval-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{preset}.sawah"));
    write_table(&path, &rules, &values, &info).unwrap();
    let table = Table::open(&path, &rules).unwrap();
    (rules, table, path.display().to_string())
}

fn table(name: &str) -> (race::RuleSet, Table, String) {
    table_for("ur-2", name)
}

#[test]
fn perfect_play_loses_nothing_and_random_play_loses_something() {
    let (rules, table, path) = table("loss");
    let perfect = AgentSpec::parse(&format!("perfect:table={path}"), "ur-2").unwrap();
    let loss = loss_against_perfect(&rules, &table, &path, &perfect, 20).unwrap();
    assert_eq!(loss, 0.0);
    let random = AgentSpec::parse("random:seed=3", "ur-2").unwrap();
    let loss = loss_against_perfect(&rules, &table, &path, &random, 20).unwrap();
    assert!(loss > 0.0 && loss <= 1.0, "{loss}");
}

#[test]
fn an_agent_that_cannot_be_built_is_an_error_naming_it() {
    let (rules, table, path) = table("error");
    let missing = AgentSpec::parse("neural:model=/no/such/model.safetensors", "ur-2").unwrap();
    let error = loss_against_perfect(&rules, &table, &path, &missing, 4).unwrap_err();
    assert!(matches!(error, LossError::Agent { .. }), "{error:?}");
    assert!(
        error.to_string().contains("/no/such/model.safetensors"),
        "{error}"
    );
}

#[test]
fn a_game_without_choices_is_an_error_not_a_zero() {
    // One piece each: every roll has at most one legal move.
    let (rules, table, path) = table_for("ur-1", "no-choices");
    let random = AgentSpec::parse("random", "ur-1").unwrap();
    let error = loss_against_perfect(&rules, &table, &path, &random, 4).unwrap_err();
    assert!(
        matches!(error, LossError::NoChoices { games: 4, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("never had a choice"), "{error}");
}
