//! `sawah levels build`: a rule set, built in or from a rule file, taken to
//! a models folder with calibrated easy, medium and hard levels, the
//! strength dial, puzzles and a report, in one command (docs/training.md,
//! "Levels for any rule set").
//!
//! The build runs in stages, each in its own folder of the work folder
//! (`work`): solve, the two networks, hard's search, the calibration, the
//! reference scale, the check, the puzzles, the verification and the
//! report; then the models folder is written atomically (`publish`). Every
//! parameter a person used to pick by hand is picked by `plan` from the
//! rule set's size, and every figure the report gives comes with the
//! command that reproduces it.

mod args;
mod build;
mod calibrate;
mod folder;
mod networks;
mod plan;
mod publish;
mod report;
mod report_text;
mod search;
mod solve;
mod stages;
pub mod work;

pub use args::{BuildArgs, LevelsAction, LevelsArgs};

use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use std::path::PathBuf;

/// Runs `sawah levels`.
pub fn run(registry: &mut Registry, args: LevelsArgs, command_line: &str) -> Result<()> {
    match args.action {
        LevelsAction::Build(args) => build(registry, &args, command_line),
    }
}

/// Runs `sawah levels build`.
fn build(registry: &mut Registry, args: &BuildArgs, command_line: &str) -> Result<()> {
    if !(args.memory.is_finite() && args.memory > 0.0 && args.memory <= 1e6) {
        bail!(
            "--memory must be a positive number of GiB, not {}",
            args.memory
        );
    }
    if !(args.effort.is_finite() && args.effort > 0.0 && args.effort <= 100.0) {
        bail!("--effort must be above 0 and at most 100");
    }
    for stage in &args.force {
        if !build::NAMES.contains(&stage.as_str()) {
            bail!(
                "--force {stage:?}: no such stage; the stages are {}",
                build::NAMES.join(", ")
            );
        }
    }
    let source = folder::RulesSource::resolve(registry, &args.rules)?;
    let name = source.game.name().to_string();
    let work_dir = match &args.work {
        Some(dir) => dir.clone(),
        None => {
            let mut dir = args.out.as_os_str().to_owned();
            dir.push(".work");
            PathBuf::from(dir).join(&name)
        }
    };
    publish::check_target(&args.out)?;
    let holder = work::Holder {
        command: command_line.to_string(),
    };
    let mut work = work::Work::open(&work_dir, &name, args.force.clone(), &holder)?;
    work.hold(publish::lock_target(&args.out, &holder)?);
    let plan = plan::Plan::for_game(&source.game, args)?;
    println!(
        "levels of {name} into {} (work folder {}, seed {}): {}",
        args.out.display(),
        work_dir.display(),
        args.seed,
        plan.summary()
    );
    // Shards serving the work folder (`sawah train-shard WORK`) stop when
    // its exchange says finished: cleared now, said when the build ends.
    let exchange = sawah_train::neural::run::exchange::folder_of(&work_dir);
    sawah_train::neural::run::exchange::mark_finished(&exchange, false)?;
    let built = stages::run_all(registry, &mut work, &source, &plan, args);
    if args.sharing.shards.is_some() {
        sawah_train::neural::run::exchange::mark_finished(&exchange, true)?;
    }
    let built = built.with_context(|| format!("building the levels of {name} (rerun to go on)"))?;
    publish::publish(&args.out, &built, &source)?;
    println!(
        "wrote {}: levels of {name}; report {}",
        args.out.display(),
        args.out.join(folder::report_md_name(&name)).display()
    );
    Ok(())
}
