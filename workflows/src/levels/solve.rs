//! Stage `solve`: the rule set solved exactly when its table fits
//! `--memory`. When it does not (or it has more positions than the
//! solver indexes), the build goes the self-play route, says why, and
//! solves what does fit: the late layers (a partial table, exact where it
//! holds a position). Senet is never solved whole: the build solves its
//! endgames with three pieces a side. `--endgame FILE` hands the build
//! such a table instead (Senet's four-piece one, made apart).

use super::build::Build;
use anyhow::{Context, Result};
use sawah_engine::AnyGame;
use sawah_engine::race::{LayerSet, PositionIndex, RuleSet};
use serde::{Deserialize, Serialize};

/// The table's file in the stage's folder.
pub const TABLE_FILE: &str = "table.sawah";

/// The late layers' (or Senet's endgames') table in the stage's folder.
pub const LATE_FILE: &str = "late.sawah";

/// Senet's endgames the build solves itself: three pieces a side, 12.2
/// million positions, about two minutes on two cores.
pub const SENET_PIECES: u8 = 3;

/// Bytes in a GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// What the stage found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Solved {
    /// Whether there is a whole table (the exact route).
    pub solved: bool,
    /// Why not, when not.
    pub reason: Option<String>,
    /// Positions in the whole table.
    pub states: u64,
    /// The first player's win probability at the start, with perfect play.
    pub start_value: Option<f64>,
    /// The solve's peak resident memory, in GiB, where known.
    pub peak_gib: Option<f64>,
    /// On the self-play route, the positions known exactly.
    #[serde(default)]
    pub late: Option<Late>,
}

/// The positions known exactly on the self-play route.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Late {
    /// What they are, in words ("the layers with at least 4 pieces borne
    /// off in all", "every position with at most 3 pieces a side on the
    /// board").
    pub what: String,
    /// How many.
    pub states: u64,
    /// The file as `--endgame` gave it, when the build did not solve them.
    pub given: Option<String>,
}

/// Runs the stage and sets the build's route and tables; returns what it
/// found.
pub fn run(build: &mut Build) -> Result<Solved> {
    let mut inputs = build.base_inputs();
    inputs.insert("memory GiB".into(), build.args.memory.to_string());
    if let Some(given) = &build.args.endgame {
        inputs.insert("endgame".into(), super::work::sha256_file(given)?);
    }
    let game = build.source.game.clone();
    let solved: Solved = build.stage("solve", &inputs, |build, dir| match &game {
        AnyGame::Race(rules) => solve_race(build, rules, dir),
        AnyGame::Senet(_) => {
            let late = late_senet(build, dir)?;
            let files = if late.given.is_none() {
                vec![LATE_FILE.to_string()]
            } else {
                Vec::new()
            };
            Ok((
                Solved {
                    solved: false,
                    reason: Some("Senet is not solved whole".into()),
                    states: 0,
                    start_value: None,
                    peak_gib: None,
                    late: Some(late),
                },
                files,
            ))
        }
    })?;
    if solved.solved {
        build.table = Some(build.work.stage_dir("solve").join(TABLE_FILE));
        println!(
            "  {} positions solved; the first player wins {:.4} with perfect play",
            solved.states,
            solved.start_value.unwrap_or(f64::NAN)
        );
        if build.args.endgame.is_some() {
            println!("  --endgame not used: the whole table fits --memory");
        }
        return Ok(solved);
    }
    let reason = solved.reason.clone().unwrap_or_default();
    println!("  not solved ({reason}): the networks learn by self-play");
    match &solved.late {
        Some(late) => {
            build.endgame = Some(match &late.given {
                Some(given) => given.into(),
                None => build.work.stage_dir("solve").join(LATE_FILE),
            });
            println!(
                "  known exactly: {} ({} positions), the targets and leaves of training",
                late.what, late.states
            );
        }
        None => println!("  known exactly: no layer fits --memory; the networks learn without"),
    }
    let (game, effort) = (build.source.game.clone(), build.args.effort);
    build.plan.go_self_play(&game, reason, effort);
    Ok(solved)
}

/// A race rule set: the whole table when it fits, else the late layers
/// that do (or the table `--endgame` gives).
fn solve_race(
    build: &mut Build,
    rules: &RuleSet,
    dir: &super::work::StageDir,
) -> Result<(Solved, Vec<String>)> {
    let options = crate::solve::run::solve_options(1e-10, build.args.memory, true)?;
    let whole = LayerSet::whole(rules.pieces());
    let needed = sawah_solver::partial::memory_needed(rules, &whole, true);
    let reason = match needed {
        Some(bytes) if bytes <= options.memory => {
            let done = crate::solve::run::solve_table(
                rules,
                &whole,
                options,
                Some(&dir.file(TABLE_FILE)),
                sawah_agents::table::ValueType::F32,
                false,
            )?;
            return Ok((
                Solved {
                    solved: true,
                    reason: None,
                    states: done.solution.values.len() as u64,
                    start_value: done.start_value,
                    peak_gib: peak_gib(done.peak_bytes),
                    late: None,
                },
                vec![TABLE_FILE.to_string()],
            ));
        }
        Some(bytes) => format!(
            "the table does not fit --memory: it needs {}, the budget is {}",
            gib(bytes as f64 / GIB),
            gib(build.args.memory)
        ),
        None => format!(
            "{} positions, more than the solver indexes (2^30 − 1)",
            sawah_engine::race::valid_position_count(rules)
        ),
    };
    let mut solved = Solved {
        solved: false,
        reason: Some(reason),
        states: 0,
        start_value: None,
        peak_gib: None,
        late: None,
    };
    if let Some(given) = &build.args.endgame {
        let table = sawah_agents::table::Table::open_partial(given, rules)
            .with_context(|| format!("--endgame {}", given.display()))?;
        solved.late = Some(Late {
            what: table.layers().to_string(),
            states: table.info().states,
            given: Some(given.display().to_string()),
        });
        return Ok((solved, Vec::new()));
    }
    let Some(layers) = sawah_solver::partial::largest_layers_within(rules, options.memory, true)
    else {
        return Ok((solved, Vec::new()));
    };
    println!(
        "  solving {layers} ({} positions) within --memory {}",
        PositionIndex::of_layers(rules, &layers).len(),
        gib(build.args.memory)
    );
    let done = crate::solve::run::solve_table(
        rules,
        &layers,
        options,
        Some(&dir.file(LATE_FILE)),
        sawah_agents::table::ValueType::F32,
        false,
    )?;
    solved.peak_gib = peak_gib(done.peak_bytes);
    solved.late = Some(Late {
        what: layers.to_string(),
        states: done.solution.values.len() as u64,
        given: None,
    });
    Ok((solved, vec![LATE_FILE.to_string()]))
}

/// Senet's endgames: the table `--endgame` gives, or three pieces a side
/// solved here.
fn late_senet(build: &Build, dir: &super::work::StageDir) -> Result<Late> {
    let describe =
        |pieces: u8| format!("every position with at most {pieces} pieces a side on the board");
    if let Some(given) = &build.args.endgame {
        let table = sawah_agents::endgame::EndgameTable::open(given)
            .with_context(|| format!("--endgame {}", given.display()))?;
        return Ok(Late {
            what: describe(table.pieces()),
            states: table.info().states,
            given: Some(given.display().to_string()),
        });
    }
    let out = dir.file(LATE_FILE);
    let request = crate::solve::run::EndgameSolve {
        pieces: SENET_PIECES,
        tolerance: 1e-10,
        values: sawah_agents::table::ValueType::F32,
        memory_gib: build.args.memory,
        verbose: false,
    };
    let states = crate::solve::run::solve_endgame_table(&request, Some(&out))?;
    Ok(Late {
        what: describe(SENET_PIECES),
        states,
        given: None,
    })
}

/// A memory size in GiB, written so that a small one does not read 0.00.
fn gib(value: f64) -> String {
    if value >= 0.01 {
        format!("{value:.2} GiB")
    } else {
        format!("{:.1} KiB", value * (1u64 << 20) as f64)
    }
}

fn peak_gib(bytes: Option<u64>) -> Option<f64> {
    bytes.map(|b| (b as f64 / GIB * 100.0).round() / 100.0)
}
