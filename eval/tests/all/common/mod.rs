//! What the eval tests share: tiny rule sets solved exactly, as table files.

use sawah_agents::table::{Table, TableInfo, ValueType, write_table};
use sawah_engine::race::{self, RuleSet};
use sawah_engine::registry::Registry;
use sawah_protocol::Bot;
use std::sync::Arc;

/// A protocol bot holding `table` (the file at `path`, named by it, as
/// `sawah bot --table` names its tables) as its default for ur-2.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn table_bot(table: &Arc<Table>, path: &str) -> Bot {
    let mut bot = Bot::new(Registry::new());
    bot.assets_mut().add_table(path, Arc::clone(table));
    bot.add_default_table(path.to_string());
    bot
}

/// ur-2 solved exactly and written to a table file in a folder of its own
/// (`name` tells the tests apart): the rule set, the opened table and its
/// path.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn solved_ur2(name: &str) -> (RuleSet, Arc<Table>, String) {
    solved("ur-2", name)
}

/// A tiny preset (`ur-2`, `ur-3`, …) solved exactly and written to a
/// table file, as [`solved_ur2`].
pub fn solved(preset: &str, name: &str) -> (RuleSet, Arc<Table>, String) {
    let rules = race::preset(preset).unwrap();
    let solution = sawah_solver::solve(&rules, Default::default(), |_| {}).unwrap();
    let info = TableInfo {
        states: solution.values.len() as u64,
        residual: solution.residual,
        tolerance: 1e-10,
        value_type: ValueType::F32,
    };
    let dir = std::env::temp_dir().join(format!("sawah-eval-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{preset}.table"));
    write_table(&path, &rules, &solution.values, &info).unwrap();
    let table = Arc::new(Table::open(&path, &rules).unwrap());
    (rules, table, path.display().to_string())
}
