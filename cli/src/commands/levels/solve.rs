//! Stage `solve`: the rule set solved exactly when its table fits
//! `--memory`; when it does not (or for Senet), the build goes the
//! self-play route and says why.

use super::build::Build;
use anyhow::Result;
use sawah_engine::AnyGame;
use serde::{Deserialize, Serialize};

/// The table's file in the stage's folder.
pub const TABLE_FILE: &str = "table.sawah";

/// What the stage found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Solved {
    /// Whether there is a table (the exact route).
    pub solved: bool,
    /// Why not, when not.
    pub reason: Option<String>,
    /// Positions in the table.
    pub states: u64,
    /// The first player's win probability at the start, with perfect play.
    pub start_value: Option<f64>,
    /// The solve's peak resident memory, in GiB, where known.
    pub peak_gib: Option<f64>,
}

/// Runs the stage and sets the build's route and table.
pub fn run(build: &mut Build) -> Result<()> {
    let AnyGame::Race(rules) = build.source.game.clone() else {
        let reason = "Senet is not solved whole".to_string();
        let (game, effort) = (build.source.game.clone(), build.args.effort);
        build.plan.go_self_play(&game, reason, effort);
        return Ok(());
    };
    let mut inputs = build.base_inputs();
    inputs.insert("memory GiB".into(), build.args.memory.to_string());
    let solved: Solved = build.stage("solve", &inputs, |build, dir| {
        let options = crate::commands::solve::run::solve_options(1e-10, build.args.memory, true)?;
        let out = dir.file(TABLE_FILE);
        let whole = sawah_engine::race::LayerSet::whole(rules.pieces());
        match crate::commands::solve::run::solve_table(
            &rules,
            &whole,
            options,
            Some(&out),
            sawah_agents::table::ValueType::F32,
            false,
        ) {
            Ok(done) => Ok((
                Solved {
                    solved: true,
                    reason: None,
                    states: done.solution.values.len() as u64,
                    start_value: done.start_value,
                    peak_gib: done
                        .peak_bytes
                        .map(|b| (b as f64 / (1u64 << 30) as f64 * 100.0).round() / 100.0),
                },
                vec![TABLE_FILE.to_string()],
            )),
            Err(error) => match error.downcast_ref::<sawah_solver::SolveError>() {
                Some(memory @ sawah_solver::SolveError::Memory { .. }) => Ok((
                    Solved {
                        solved: false,
                        reason: Some(format!("the table does not fit --memory: {memory}")),
                        states: 0,
                        start_value: None,
                        peak_gib: None,
                    },
                    Vec::new(),
                )),
                _ => Err(error),
            },
        }
    })?;
    if solved.solved {
        build.table = Some(build.work.stage_dir("solve").join(TABLE_FILE));
        println!(
            "  {} positions solved; the first player wins {:.4} with perfect play",
            solved.states,
            solved.start_value.unwrap_or(f64::NAN)
        );
    } else {
        let reason = solved.reason.unwrap_or_default();
        println!("  not solved ({reason}): the networks learn by self-play");
        let (game, effort) = (build.source.game.clone(), build.args.effort);
        build.plan.go_self_play(&game, reason, effort);
    }
    Ok(())
}
