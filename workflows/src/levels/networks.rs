//! Stages `small-network` and `hard-network`: the two value networks.
//!
//! On the exact route each is distilled from the solved table in two
//! passes, as `scripts/hard.sh` did by hand: the positions of self-play
//! games with their exact values, then, from those weights at a low
//! learning rate, every legal move's result wherever the table values the
//! moves at least 0.1 point apart (`choice_margin`), so the network learns
//! to rank the moves where the choice matters. Hard's first pass starts
//! from the shipped hard network of the nearest rule set whose inputs mean
//! the same (route length and pieces), when there is one. On the
//! self-play route each network learns by TD(λ), then from searches over
//! itself (expert iteration), exact wherever the late layers are known.
//!
//! Budgets are games, so a build does not depend on the machine's load;
//! the model file's `training_seconds` and the work folder's paths are left
//! out of what it records, so the same seed gives the same file, byte for
//! byte.

use super::build::Build;
use super::plan::{NetPlan, Route, distance};
use super::work::{Inputs, StageDir};
use anyhow::{Context, Result};
use sawah_agents::manifest::Models;
use sawah_agents::neural::NeuralNet;
use sawah_engine::AnyGame;
use sawah_train::neural::{Mode, TrainConfig};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The network's file in the stage's folder.
pub const MODEL_FILE: &str = "model.safetensors";

/// What a network stage made.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Network {
    /// The stage (and its folder).
    pub stage: String,
    /// Hidden layer widths.
    pub hidden: Vec<usize>,
    /// Games of each pass.
    pub passes: Vec<u64>,
    /// The shipped model the first pass started from, if any.
    pub init: Option<String>,
    /// Its loss per move against perfect play at the end of each pass, in
    /// percentage points, where measured.
    pub loss_vs_perfect_pp: Vec<Option<f64>>,
    /// Trainable parameters.
    pub parameters: usize,
    /// The file's size in bytes.
    pub bytes: u64,
}

impl Network {
    /// The model file, in the work folder.
    pub fn path(&self, build: &Build) -> PathBuf {
        build.work.stage_dir(&self.stage).join(MODEL_FILE)
    }
}

/// The small network (easy, medium and the dial).
pub fn small(build: &mut Build) -> Result<Network> {
    let plan = build.plan.small.clone();
    train_network(build, "small-network", &plan, None)
}

/// Hard's network.
pub fn hard(build: &mut Build) -> Result<Network> {
    let plan = build.plan.hard.clone();
    // A shipped network learned from a table: only the exact route starts
    // from one, so that the self-play route learns from no table at all.
    let init = match build.plan.route {
        Route::Exact { .. } => nearest_shipped(&build.source.game, &plan.hidden),
        Route::SelfPlay { .. } => None,
    };
    train_network(build, "hard-network", &plan, init)
}

/// The shipped hard network of the nearest race rule set whose inputs mean
/// the same as `game`'s (equal route length and pieces), with `hidden`
/// layers: its name and bytes.
fn nearest_shipped(game: &AnyGame, hidden: &[usize]) -> Option<(String, &'static [u8])> {
    let AnyGame::Race(rules) = game else {
        return None;
    };
    let models = Models::shipped();
    let registry = sawah_engine::Registry::new();
    let mut best: Option<(f64, String, &'static [u8])> = None;
    for level in models
        .manifest()
        .levels
        .iter()
        .filter(|l| l.level == "hard")
    {
        let (Some(model), Ok(AnyGame::Race(other))) = (&level.model, registry.get(&level.rules))
        else {
            continue;
        };
        if other.name() == rules.name() {
            continue;
        }
        let Some(d) = distance(rules, &other) else {
            continue;
        };
        let Some(bytes) = sawah_agents::shipped::file(model) else {
            continue;
        };
        let Ok(net) = NeuralNet::from_bytes(bytes) else {
            continue;
        };
        let mut widths = vec![net.input_size()];
        widths.extend(hidden);
        widths.push(1);
        if net.widths() != widths || net.encoder().id() != "race-onehot-v1" {
            continue;
        }
        if best
            .as_ref()
            .is_none_or(|(b, name, _)| (d, model) < (*b, name))
        {
            best = Some((d, model.clone(), bytes));
        }
    }
    best.map(|(_, name, bytes)| (name, bytes))
}

/// The settings of one pass. On the exact route both passes distil the
/// table; on the self-play route the first learns by TD(λ) and the second
/// from searches over the network (expert iteration), both exact where
/// the late layers are known (`endgame`).
fn pass_config(
    build: &Build,
    plan: &NetPlan,
    games: u64,
    seed: u64,
    polish_from: Option<&Path>,
) -> TrainConfig {
    let exact = matches!(build.plan.route, Route::Exact { .. });
    let mut config = TrainConfig {
        mode: if exact { Mode::Distill } else { Mode::SelfPlay },
        hidden: plan.hidden.clone(),
        minutes: 0.0,
        games,
        learning_rate: 1e-3,
        learning_rate_end: Some(1e-4),
        heuristic_learning_rate: 0.0,
        seed,
        table: build.table.as_ref().map(|t| t.display().to_string()),
        endgame: build.endgame.as_ref().map(|t| t.display().to_string()),
        eval_opponents: vec!["heuristic".into()],
        eval_every: 0,
        eval_games: 200,
        ..TrainConfig::default()
    };
    if let Some(from) = polish_from {
        config.init = Some(from.display().to_string());
        config.choice_margin = Some(0.001);
        if exact {
            config.learning_rate = 1e-4;
            config.learning_rate_end = Some(2e-5);
        } else {
            config.mode = Mode::Search;
            config.search_depth = 1;
            config.learning_rate = 3e-4;
            config.learning_rate_end = Some(3e-5);
        }
    }
    config
}

/// Trains one network in its stage: the passes, then its model file.
fn train_network(
    build: &mut Build,
    stage: &str,
    plan: &NetPlan,
    init: Option<(String, &'static [u8])>,
) -> Result<Network> {
    let mut inputs: Inputs = build.base_inputs();
    inputs.insert("hidden".into(), format!("{:?}", plan.hidden));
    inputs.insert("games".into(), plan.games.to_string());
    inputs.insert("polish games".into(), plan.polish_games.to_string());
    inputs.insert("route".into(), build.plan.route_summary());
    if let Some(sha) = build.work.output_sha("solve", super::solve::TABLE_FILE)? {
        inputs.insert("table".into(), sha);
    }
    if let Some(endgame) = &build.endgame {
        inputs.insert("endgame".into(), super::work::sha256_file(endgame)?);
    }
    if let Some((name, _)) = &init {
        inputs.insert("init".into(), name.clone());
    }
    let stage_name = stage.to_string();
    build.stage(stage, &inputs, move |build, dir| {
        let mut passes = vec![plan.games];
        if plan.polish_games > 0 {
            passes.push(plan.polish_games);
        }
        let mut losses = Vec::new();
        let mut previous: Option<PathBuf> = None;
        for (k, &games) in passes.iter().enumerate() {
            let folder = dir.file(&format!("pass{}", k + 1));
            let seed = build.seed_for(&format!("{stage_name} pass {}", k + 1));
            let mut config = pass_config(build, plan, games, seed, previous.as_deref());
            if k == 0
                && let Some((name, bytes)) = &init
            {
                let path = dir.file(name);
                sawah_agents::files::write_atomically(&path, bytes)?;
                config.init = Some(path.display().to_string());
                config.init_from_other_rules = true;
            }
            let resume = folder.join("config.json").exists();
            println!(
                "  pass {} of {}: {} games{}",
                k + 1,
                passes.len(),
                games,
                if resume { " (going on)" } else { "" }
            );
            train_pass(
                build,
                &folder,
                &dir.file(&format!("pass{}.json", k + 1)),
                &config,
                resume,
            )?;
            losses.push(last_loss(&folder));
            previous = Some(folder.join("current.safetensors"));
        }
        let last = previous.context("no pass ran")?;
        let (parameters, bytes) = write_model(&last, dir)?;
        Ok((
            Network {
                stage: stage_name.clone(),
                hidden: plan.hidden.clone(),
                passes,
                init: init.as_ref().map(|(name, _)| name.clone()),
                loss_vs_perfect_pp: losses,
                parameters,
                bytes,
            },
            vec![MODEL_FILE.to_string()],
        ))
    })
}

/// Trains one pass in a process of its own (`sawah train`, this binary):
/// a fresh process starts from the same state every time, so the same
/// settings train the same weights (in a process that has solved a table
/// first, the learner's buffers land elsewhere in memory, and its vector
/// sums then take their terms in another grouping).
fn train_pass(
    build: &Build,
    folder: &Path,
    settings: &Path,
    config: &TrainConfig,
    resume: bool,
) -> Result<()> {
    let exe = std::env::current_exe().context("finding the sawah binary to train with")?;
    let mut command = std::process::Command::new(exe);
    if let Some((file, _)) = &build.source.file {
        command
            .arg("--rules-file")
            .arg(build.staging.dir.join(file));
    }
    command.arg("train");
    // Where the games are played never changes what is trained: not a
    // stage input.
    command.args(build.args.sharing.train_arguments());
    if resume {
        command.arg("--resume").arg(folder);
    } else {
        super::work::write_json(settings, config)?;
        command
            .args(["--rules", build.name(), "--config"])
            .arg(settings)
            .arg("--out")
            .arg(folder);
    }
    die_with_parent(&mut command);
    let status = command
        .status()
        .context("starting `sawah train` for a network")?;
    if !status.success() {
        anyhow::bail!(
            "training in {} failed ({status}); its output is above",
            folder.display()
        );
    }
    Ok(())
}

/// Makes the training process end with the build that started it (a
/// build killed by a signal that reaches it alone must not leave its
/// trainer running, holding the run's lock).
fn die_with_parent(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec the closure only calls prctl and
        // getppid, both async-signal-safe, and allocates nothing.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have gone before the call: then end now.
                if libc::getppid() == 1 {
                    return Err(std::io::Error::other("the build ended"));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// The loss per move against perfect play of a run's last evaluation.
fn last_loss(folder: &Path) -> Option<f64> {
    let evaluations = sawah_train::neural::RunFolder {
        dir: folder.to_path_buf(),
    }
    .read_evals()
    .ok()?;
    evaluations
        .last()?
        .measures
        .iter()
        .find(|(name, _)| name == "loss_per_move_vs_perfect_pp")
        .map(|(_, v)| *v)
}

/// Writes the run's network as the stage's model file, keeping out what
/// would differ between two runs of the same build (seconds, paths).
fn write_model(current: &Path, dir: &StageDir) -> Result<(usize, u64)> {
    let mut net = NeuralNet::load_file(current)?;
    if let Some(info) = net.info.info.as_object_mut() {
        info.remove("training_seconds");
        if let Some(config) = info.get_mut("config").and_then(|c| c.as_object_mut()) {
            for key in ["table", "init"] {
                if let Some(path) = config.get(key).and_then(|v| v.as_str()) {
                    let name = Path::new(path)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    config.insert(key.into(), serde_json::Value::from(name));
                }
            }
        }
    }
    let bytes = net.to_bytes()?;
    sawah_agents::files::write_atomically(&dir.file(MODEL_FILE), &bytes)?;
    Ok((net.parameters(), bytes.len() as u64))
}
