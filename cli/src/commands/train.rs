//! `sawah train` (with `--shards N`), `sawah train-shard` and `sawah
//! export`: argument checks, the solved-table teacher and measures for race
//! rule sets (a shard sets them up as its learner does), and the progress
//! bar.

use anyhow::{Context, Result, bail};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::NeuralNet;
use sawah_agents::table::Table;
use sawah_engine::race::RuleSet;
use sawah_engine::{AnyGame, Registry};
use sawah_eval::arena::tournament::Shard;
use sawah_eval::study::analysis;
use sawah_train::neural::run::exchange::{EXCHANGE_FOLDER, finished, folder_of};
use sawah_train::neural::run::{Status, serve};
use sawah_train::neural::{RunFolder, RunOptions, TrainConfig, train};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The arguments of `sawah train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Rule set name or rule file path [default: sawah, or the resumed run's].
    #[arg(long)]
    pub rules: Option<String>,
    /// The seed of everything (weights, dice, exploration, shuffling): the
    /// same as --set seed=N [default: 1, or the settings file's].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Settings file (TOML or JSON; see docs/training.md).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override a setting: key=value (repeatable), e.g. --set hidden=[64] --set minutes=30.
    #[arg(long, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The new run's folder.
    #[arg(long, value_name = "FOLDER")]
    pub out: Option<PathBuf>,
    /// Continue the run in this folder from its last checkpoint.
    #[arg(long, value_name = "FOLDER")]
    pub resume: Option<PathBuf>,
    /// Sharing the training games among shard processes.
    #[command(flatten)]
    pub sharing: sawah_workflows::sharing::ShardingArgs,
}

/// The arguments of `sawah train-shard`.
#[derive(clap::Args, Debug)]
pub struct TrainShardArgs {
    /// A run folder trained with --shards N, or a folder holding such runs
    /// (a levels build's work folder): every run there that shares its
    /// rounds is served, one after another.
    pub folder: PathBuf,
    /// This shard: K/N, or auto (auto/N) for the task's share in a Slurm
    /// job array or a Kubernetes Indexed Job, as `sawah tournament` reads it.
    #[arg(long)]
    pub shard: String,
    /// Stop after this long without a new round to play.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub idle: u64,
}

/// The arguments of `sawah export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The run folder.
    pub run: PathBuf,
    /// The model file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

fn progress(config: &TrainConfig) -> indicatif::ProgressBar {
    let (len, unit) = if config.games > 0 {
        (config.games, "games")
    } else {
        ((config.minutes * 60.0) as u64, "s")
    };
    sawah_workflows::progress::bar(
        len,
        &format!("{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}  {{msg}}"),
    )
}

/// The network's loss per move against perfect play, by the table, or why
/// it could not be measured.
fn loss_against_perfect(
    rules: &RuleSet,
    table: &Table,
    table_path: &str,
    model: &Path,
    games: u64,
) -> Result<f64, String> {
    let spec =
        sawah_agents::AgentSpec::parse(&format!("neural:model={}", model.display()), rules.name())
            .map_err(|e| e.to_string())?;
    analysis::loss_against_perfect(rules, table, table_path, &spec, games)
        .map_err(|e| e.to_string())
}

fn run_job<G>(game: &G, options: RunOptions<'_, G>, job: &Job) -> Result<()>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    if let Job::Serve { shard, idle } = job {
        let run = options.folder.dir.clone();
        let served = serve(game, options, *shard, *idle)?;
        println!(
            "shard {}/{} of {}: {} rounds, {} samples",
            shard.index,
            shard.count,
            run.display(),
            served.rounds,
            served.samples
        );
        return Ok(());
    }
    let counters = train(game, options)?;
    println!(
        "trained {} rounds, {} games, {} positions, {} steps in {:.0} s",
        counters.rounds, counters.games, counters.positions, counters.steps, counters.seconds
    );
    Ok(())
}

/// What `sawah train` starts: the game, the run folder, the settings, and
/// whether it resumes.
struct Plan {
    game: AnyGame,
    folder: PathBuf,
    config: TrainConfig,
    resume: bool,
    job: Job,
}

/// What the process does with the run.
#[derive(Clone, Debug)]
enum Job {
    /// Trains it, its rounds played here or shared out.
    Train(Option<Sharing>),
    /// Plays a shard's share of its rounds.
    Serve { shard: Shard, idle: Duration },
}

/// How `--shards` shares the rounds out.
#[derive(Clone, Debug)]
struct Sharing {
    shards: u64,
    wait: Duration,
}

impl Job {
    fn sharing(&self, game: &AnyGame) -> Option<sawah_train::neural::run::Sharing> {
        match self {
            Job::Train(Some(sharing)) => Some(sawah_train::neural::run::Sharing {
                shards: sharing.shards,
                wait: sharing.wait,
                rules_spec: match game {
                    AnyGame::Race(rules) => Some(rules.spec().clone()),
                    AnyGame::Senet(_) => None,
                },
            }),
            _ => None,
        }
    }
}

/// Checks the arguments and reads the settings (a new run's, or the run's
/// own record when resuming).
fn plan(registry: &mut Registry, args: &TrainArgs) -> Result<Plan> {
    let job = Job::Train(args.sharing.shards.map(|shards| Sharing {
        shards,
        wait: Duration::from_secs(args.sharing.shard_wait),
    }));
    match (&args.resume, &args.out) {
        (Some(_), Some(_)) => {
            bail!("give either --out (a new run) or --resume (an existing one), not both")
        }
        (None, None) => bail!("give --out FOLDER for a new run, or --resume FOLDER"),
        (Some(dir), None) => {
            if args.config.is_some() || !args.set.is_empty() || args.seed.is_some() {
                bail!(
                    "--resume continues with the run's own settings (its config.json); leave out --config, --set and --seed"
                );
            }
            let record = RunFolder { dir: dir.clone() }.read_record()?;
            if args.rules.as_deref().is_some_and(|r| r != record.rules) {
                bail!("the run in {} is for {}", dir.display(), record.rules);
            }
            Ok(Plan {
                game: registry.resolve(&record.rules)?,
                folder: dir.clone(),
                config: record.config,
                resume: true,
                job,
            })
        }
        (None, Some(dir)) => {
            let rules = args.rules.as_deref().unwrap_or("sawah");
            let base = match &args.config {
                Some(path) => TrainConfig::from_file(path)?,
                None => TrainConfig::default(),
            };
            let mut overrides = args.set.clone();
            if let Some(seed) = args.seed {
                if args.set.iter().any(|s| s.trim_start().starts_with("seed")) {
                    bail!("give the seed once: --seed or --set seed=N");
                }
                overrides.push(format!("seed={seed}"));
            }
            Ok(Plan {
                game: registry.resolve(rules)?,
                folder: dir.clone(),
                config: base.with_overrides(&overrides)?,
                resume: false,
                job,
            })
        }
    }
}

/// Shows a training status on the progress bar, and each evaluation as a
/// line above it. When stderr is not a terminal (a batch job's log), the
/// bar is hidden and each evaluation is a plain line on stderr instead,
/// with the round's figures, so that the log shows progress.
fn show_status(bar: &indicatif::ProgressBar, config: &TrainConfig, status: &Status) {
    let c = status.counters;
    bar.set_position(if config.games > 0 {
        c.games
    } else {
        c.seconds as u64
    });
    let mut message = format!(
        "{} games, {:.0} pos/s, loss {:.4}, TD error {:.3}",
        c.games,
        c.positions as f64 / c.seconds.max(1e-9),
        status.loss,
        status.td_error
    );
    if let Some(e) = &status.evaluation {
        let scores: Vec<String> = e
            .results
            .iter()
            .map(|(o, s, lo, hi)| {
                format!(
                    "{o} {:.1}% ({:.1}-{:.1})",
                    100.0 * s,
                    100.0 * lo,
                    100.0 * hi
                )
            })
            .collect();
        let measures: Vec<String> = e
            .measures
            .iter()
            .map(|(n, v)| format!("{n} {v:.4}"))
            .collect();
        let line = format!(
            "after {} games: {} {}",
            e.games,
            scores.join(", "),
            measures.join(", ")
        );
        if bar.is_hidden() {
            eprintln!("{}; {message}", line.trim_end());
        } else {
            bar.println(line);
        }
    }
    message.truncate(200);
    bar.set_message(message);
}

/// The run's first line: what is trained, on what, where, with which seed.
fn announce(plan: &Plan) {
    let Plan {
        game,
        folder,
        config,
        resume,
        ..
    } = plan;
    println!(
        "{} {} on {}: {} in {} (seed {})",
        if *resume { "resuming" } else { "training" },
        match config.mode {
            sawah_train::neural::Mode::SelfPlay => "self-play TD(lambda)",
            sawah_train::neural::Mode::Distill => "distillation",
            sawah_train::neural::Mode::Search => "expert iteration (search targets)",
        },
        game.name(),
        config
            .hidden
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join("x"),
        folder.display(),
        config.seed
    );
}

/// Trains a race rule set: with a solved table, perfect play is an
/// opponent, the teacher (distillation) and the measure of loss per move.
fn train_race(
    rules: &RuleSet,
    plan: &Plan,
    bar: &indicatif::ProgressBar,
    observe: &mut dyn FnMut(&Status),
) -> Result<()> {
    let config = &plan.config;
    // A partial table (the late layers, `sawah solve --partial`): exact
    // values where it holds a position.
    let endgame = match &config.endgame {
        Some(path) => Some(
            Table::open_partial(Path::new(path), rules)
                .with_context(|| format!("endgame {path}"))?,
        ),
        None => None,
    };
    let exact = endgame
        .as_ref()
        .map(|table| move |p: &sawah_engine::race::Position| table.get(p));
    let table = match &config.table {
        Some(path) => {
            Some(Table::open(Path::new(path), rules).with_context(|| format!("table {path}"))?)
        }
        None => None,
    };
    let mut opponents = config.eval_opponents.clone();
    if let Some(path) = &config.table {
        opponents.push(format!("perfect:table={path}"));
    }
    let teacher = table.as_ref().map(|t| {
        move |p: &sawah_engine::race::Position| sawah_agents::perfect::position_value(rules, t, p)
    });
    let measures = |_: &NeuralNet, model: &Path| match (&table, &config.table) {
        (Some(t), Some(path)) => {
            match loss_against_perfect(rules, t, path, model, config.eval_games) {
                // In percentage points, as loss per move is everywhere.
                Ok(loss) => vec![("loss_per_move_vs_perfect_pp".to_string(), 100.0 * loss)],
                Err(why) => {
                    // Said, not silently left out of the evaluation.
                    bar.println(format!(
                        "loss per move against perfect play not measured: {why}"
                    ));
                    Vec::new()
                }
            }
        }
        _ => Vec::new(),
    };
    let options = RunOptions {
        folder: RunFolder {
            dir: plan.folder.clone(),
        },
        config: config.clone(),
        resume: plan.resume,
        teacher: teacher
            .as_ref()
            .map(|t| t as &(dyn Fn(&sawah_engine::race::Position) -> f64 + Sync)),
        exact: exact
            .as_ref()
            .map(|f| f as &(dyn Fn(&sawah_engine::race::Position) -> Option<f64> + Sync)),
        opponents,
        measures: Some(&measures),
        observe,
        sharing: plan.job.sharing(&plan.game),
    };
    run_job(rules, options, &plan.job)
}

/// Trains Senet (no tables: self-play against the fixed opponents).
fn train_senet(
    senet: &sawah_engine::senet::Senet,
    plan: &Plan,
    observe: &mut dyn FnMut(&Status),
) -> Result<()> {
    if plan.config.table.is_some() {
        bail!(
            "senet is not solved whole; leave out table (endgame = \"FILE\" takes an endgame table)"
        );
    }
    let endgame = match &plan.config.endgame {
        Some(path) => Some(
            sawah_agents::endgame::EndgameTable::open(Path::new(path))
                .with_context(|| format!("endgame {path}"))?,
        ),
        None => None,
    };
    let exact = endgame
        .as_ref()
        .map(|table| move |p: &sawah_engine::senet::Position| table.value(p));
    let options = RunOptions {
        folder: RunFolder {
            dir: plan.folder.clone(),
        },
        config: plan.config.clone(),
        resume: plan.resume,
        teacher: None,
        exact: exact
            .as_ref()
            .map(|f| f as &(dyn Fn(&sawah_engine::senet::Position) -> Option<f64> + Sync)),
        opponents: plan.config.eval_opponents.clone(),
        measures: None,
        observe,
        sharing: plan.job.sharing(&plan.game),
    };
    run_job(senet, options, &plan.job)
}

/// Runs `sawah train`.
pub fn train_command(registry: &mut Registry, args: TrainArgs) -> Result<()> {
    let plan = plan(registry, &args)?;
    announce(&plan);
    run_plan(&plan)?;
    println!(
        "model: {} (export with `sawah export {} --out models/NAME.safetensors`)",
        plan.folder.join("current.safetensors").display(),
        plan.folder.display()
    );
    Ok(())
}

/// Trains a plan under its progress bar.
fn run_plan(plan: &Plan) -> Result<()> {
    // A shard plays rounds; the learner's bar is the learner's.
    let bar = match plan.job {
        Job::Train(_) => progress(&plan.config),
        Job::Serve { .. } => indicatif::ProgressBar::hidden(),
    };
    let mut observe = |status: &Status| show_status(&bar, &plan.config, status);
    let result = match &plan.game {
        AnyGame::Race(rules) => train_race(rules, plan, &bar, &mut observe),
        AnyGame::Senet(senet) => train_senet(senet, plan, &mut observe),
    };
    bar.finish_and_clear();
    result
}

/// Runs `sawah train-shard`: serves each run under the folder that shares
/// its rounds, until the folder's own exchange says it has finished (a
/// run's learner, or a levels build, at its end) or nothing has come for
/// `--idle` seconds.
pub fn train_shard_command(registry: &mut Registry, args: TrainShardArgs) -> Result<()> {
    let shard = Shard::resolve(&args.shard, |name| std::env::var(name).ok())
        .map_err(|e| anyhow::anyhow!(e))?;
    let idle = Duration::from_secs(args.idle);
    if !args.folder.is_dir() {
        bail!("{} is not a folder", args.folder.display());
    }
    println!(
        "shard {}/{} serving the runs in {}",
        shard.index,
        shard.count,
        args.folder.display()
    );
    let mut since = Instant::now();
    while !finished(&folder_of(&args.folder)) {
        match open_runs(&args.folder).into_iter().next() {
            Some(run) => {
                let record = RunFolder { dir: run.clone() }.read_record()?;
                let description =
                    sawah_train::neural::run::exchange::read_description(&folder_of(&run))?;
                let game = match description.rules_spec {
                    Some(spec) => registry.add(
                        RuleSet::new(spec).with_context(|| {
                            format!("the rule set of the run in {}", run.display())
                        })?,
                        &run.display().to_string(),
                    )?,
                    None => registry.resolve(&record.rules)?,
                };
                let plan = Plan {
                    game,
                    folder: run,
                    config: record.config,
                    resume: true,
                    job: Job::Serve { shard, idle },
                };
                run_plan(&plan)?;
                since = Instant::now();
            }
            None if since.elapsed() >= idle => bail!(
                "no run in {} has shared a round for {} s; shard {}/{} stops",
                args.folder.display(),
                args.idle,
                shard.index,
                shard.count
            ),
            None => std::thread::sleep(Duration::from_millis(200)),
        }
    }
    println!("shard {}/{}: finished", shard.index, shard.count);
    Ok(())
}

/// The run folders at most three levels under `folder` (itself included)
/// whose exchange is open: described and not finished.
fn open_runs(folder: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let exchange = dir.join(EXCHANGE_FOLDER);
        if exchange.join("exchange.json").is_file() && !finished(&exchange) {
            out.push(dir.to_path_buf());
        }
        if depth == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut subfolders: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n != EXCHANGE_FOLDER))
            .collect();
        subfolders.sort();
        for sub in subfolders {
            walk(&sub, depth - 1, out);
        }
    }
    let mut out = Vec::new();
    walk(folder, 3, &mut out);
    out
}

/// Runs `sawah export`.
pub fn export_command(run: &Path, out: &Path) -> Result<()> {
    let entry = sawah_train::neural::export::export(run, out)?;
    println!(
        "{}: {} {} ({} parameters, layers {:?}), sha256 {}; manifest entry in {}.json",
        out.display(),
        entry.rules,
        entry.encoder,
        entry.parameters,
        entry.layers,
        entry.sha256,
        out.display()
    );
    Ok(())
}
