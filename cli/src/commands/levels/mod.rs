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

use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use std::path::PathBuf;

/// The arguments of `sawah levels`.
#[derive(clap::Args, Debug)]
pub struct LevelsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: LevelsAction,
}

/// `sawah levels` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum LevelsAction {
    /// Make a rule set's levels: solve it (when the table fits --memory),
    /// distil and train its networks, choose hard's search, calibrate easy,
    /// medium and the strength dial, mine puzzles and write a report, into
    /// a models folder every front door loads with --models DIR. Rerun the
    /// same command to go on after an interruption.
    Build(BuildArgs),
}

/// The arguments of `sawah levels build`.
#[derive(clap::Args, Debug, Clone)]
pub struct BuildArgs {
    /// The rule set: a name, or a rule file (TOML or JSON) that then
    /// travels inside the folder.
    #[arg(long)]
    pub rules: String,
    /// The models folder to write: a new folder, or an existing models
    /// folder whose other rule sets are kept.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The seed of everything the build does (training, games, puzzles).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory for the solver, in GiB: the rule set is solved when its
    /// table fits, else its networks learn by self-play.
    #[arg(long, value_name = "GIB", default_value_t = 7.75)]
    pub memory: f64,
    /// The work folder: each stage's files and record, the solved table
    /// (default: OUT.work/RULES beside the models folder).
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Redo this stage and every stage after it, even though its inputs
    /// changed or it finished (repeatable): solve, hard-network,
    /// small-network, hard-search, calibration, reference, check, puzzles,
    /// verify, report.
    #[arg(long, value_name = "STAGE")]
    pub force: Vec<String>,
    /// Scale every game and training budget by this factor (1: the
    /// budgets the targets were measured with; tests use less).
    #[arg(long, default_value_t = 1.0, hide = true)]
    pub effort: f64,
}

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
        if !stages::NAMES.contains(&stage.as_str()) {
            bail!(
                "--force {stage:?}: no such stage; the stages are {}",
                stages::NAMES.join(", ")
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
    let built = stages::run_all(registry, &mut work, &source, &plan, args)
        .with_context(|| format!("building the levels of {name} (rerun to go on)"))?;
    publish::publish(&args.out, &built, &source)?;
    println!(
        "wrote {}: levels of {name}; report {}",
        args.out.display(),
        args.out.join(folder::report_md_name(&name)).display()
    );
    Ok(())
}
