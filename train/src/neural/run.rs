//! A training run: the loop, its folder, checkpoints, TensorBoard scalars
//! and evaluations.
//!
//! The folder holds `config.json` (the resolved settings, rule set and code
//! version), `checkpoint.bin` (written atomically every few minutes and at
//! the end), `current.safetensors` (the latest weights as a model file),
//! `evals.jsonl` (one line per evaluation) and `tb/` (TensorBoard event
//! files, one sub-folder per process so a resumed run never overwrites the
//! events of the run before). While a process trains it holds an exclusive
//! lock on `run.lock` there, so a second process on the same folder (a
//! `--resume` started while the run still goes) is refused rather than
//! training alongside it from the same checkpoint.
//!
//! Rounds: the games of round r + 1 are played (rayon, both cores) with the
//! network as it was before round r's update, while the learner trains on
//! round r's positions (on a thread of its own, so that its sums add up
//! in the same order every run). Everything follows from the seed and the
//! round number, and a checkpoint keeps the network the next round's games are
//! played with, so a resumed run continues exactly as the uninterrupted one
//! would have.

use super::config::{Mode, TrainConfig};
use super::heuristic::HeuristicWeights;
use super::net::ValueNet;
use super::selfplay::{Sample, generate};
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, OptimizerRecord};
use burn::prelude::*;
use burn::store::{BurnpackStore, ModuleSnapshot};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use sawah_agents::AgentSpec;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::{Activation, Encoder, ModelInfo, NeuralNet};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// The checkpoint file's magic bytes.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"SAWAHCKP";
/// The checkpoint format version.
pub const CHECKPOINT_VERSION: u32 = 1;

/// Why training stopped with an error.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A file in the run folder.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A setting.
    #[error("{0}")]
    Config(String),
    /// The settings.
    #[error("{0}")]
    Settings(#[from] super::config::ConfigError),
    /// The run's network.
    #[error("{0}")]
    Model(#[from] sawah_agents::neural::ModelError),
}

fn file_error(path: &Path, message: impl std::fmt::Display) -> TrainError {
    TrainError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// Where things are in a run folder.
#[derive(Clone, Debug)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
}

impl RunFolder {
    /// The resolved settings.
    pub fn config(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// The run's record (`config.json`: rule set, settings, code version),
    /// to resume it; an error names the file and says if it is not a run
    /// folder.
    pub fn read_record(&self) -> Result<RunRecord, TrainError> {
        let path = self.config();
        let text = fs::read_to_string(&path)
            .map_err(|e| file_error(&path, format!("{e} (is this a run folder?)")))?;
        serde_json::from_str(&text).map_err(|e| file_error(&path, e))
    }
    /// The checkpoint.
    pub fn checkpoint(&self) -> PathBuf {
        self.dir.join("checkpoint.bin")
    }
    /// The latest weights as a model file.
    pub fn current_model(&self) -> PathBuf {
        self.dir.join("current.safetensors")
    }
    /// Evaluation results, one JSON line each.
    pub fn evals(&self) -> PathBuf {
        self.dir.join("evals.jsonl")
    }

    /// Every evaluation so far (at most [`MAX_EVALS_BYTES`] of them); a
    /// line that is not an evaluation is an error naming the line.
    pub fn read_evals(&self) -> Result<Vec<Evaluation>, TrainError> {
        let path = self.evals();
        let bytes = sawah_agents::neural::model::read_bounded(&path, MAX_EVALS_BYTES)
            .map_err(|e| file_error(&path, format!("{e} (has the run evaluated yet?)")))?;
        let text = String::from_utf8(bytes).map_err(|e| file_error(&path, e))?;
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(k, line)| {
                serde_json::from_str(line)
                    .map_err(|e| file_error(&path, format!("line {}: {e}", k + 1)))
            })
            .collect()
    }
    /// The learned weights of the hand-made evaluation.
    pub fn heuristic(&self) -> PathBuf {
        self.dir.join("heuristic.json")
    }
    /// TensorBoard event folders.
    pub fn tensorboard(&self) -> PathBuf {
        self.dir.join("tb")
    }

    /// Takes the folder's lock (`run.lock`) for this process, or says that
    /// another process is training in it.
    fn lock(&self) -> Result<fs::File, TrainError> {
        let path = self.dir.join(LOCK_FILE);
        match sawah_agents::files::try_lock_folder(&self.dir, LOCK_FILE) {
            Ok(Some(lock)) => Ok(lock),
            Ok(None) => Err(file_error(
                &path,
                "locked: another process is training in this folder; wait for it or stop it, or choose another --out",
            )),
            Err(e) => Err(file_error(&path, e)),
        }
    }
}

/// The file a training process locks in its run folder.
const LOCK_FILE: &str = "run.lock";

/// The largest `evals.jsonl` read: a line is a few hundred bytes, an
/// evaluation every few thousand games, so this is room for millions.
pub const MAX_EVALS_BYTES: u64 = 64 << 20;

/// What `config.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// The rule set id.
    pub rules: String,
    /// Its digest.
    pub rules_digest: String,
    /// The input encoding.
    pub encoder: String,
    /// The resolved settings.
    pub config: TrainConfig,
    /// The code that started the run.
    pub code_version: String,
}

/// Progress counters (saved in checkpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Rounds trained.
    pub rounds: u64,
    /// Self-play games played and trained on.
    pub games: u64,
    /// Positions trained on.
    pub positions: u64,
    /// Gradient steps.
    pub steps: u64,
    /// Training seconds, over every session.
    pub seconds: f64,
    /// Games at the last evaluation.
    pub evaluated_at: u64,
}

/// One evaluation: the network (greedy, one ply) against fixed opponents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Training games so far.
    pub games: u64,
    /// Per opponent: (opponent spec, score, 95% low, 95% high).
    pub results: Vec<(String, f64, f64, f64)>,
    /// Extra measures (e.g. mean win probability lost per move).
    pub measures: Vec<(String, f64)>,
}

/// What the observer hears after each round.
#[derive(Clone, Debug)]
pub struct Status {
    /// Counters so far.
    pub counters: Counters,
    /// Mean squared error of the last round.
    pub loss: f64,
    /// Mean |target − prediction| of the last round's positions.
    pub td_error: f64,
    /// The evaluation made this round, if any.
    pub evaluation: Option<Evaluation>,
}

/// Extra measures of a network at evaluation time (e.g. loss per move
/// against a solved table): name and value.
pub type Measures<'a> = &'a (dyn Fn(&NeuralNet, &Path) -> Vec<(String, f64)> + Sync);

/// Everything the loop needs besides the game.
pub struct RunOptions<'a, G: sawah_engine::Game> {
    /// The run folder.
    pub folder: RunFolder,
    /// The settings (ignored on resume: the folder's are used).
    pub config: TrainConfig,
    /// Continue the run in the folder.
    pub resume: bool,
    /// Exact values for distillation.
    pub teacher: Option<super::selfplay::Teacher<'a, G::Position>>,
    /// Exact values where known (a Senet endgame table): self-play games
    /// stop there with that value (see [`super::selfplay::Exact`]).
    pub exact: Option<super::selfplay::Exact<'a, G::Position>>,
    /// Opponents at each evaluation (specs).
    pub opponents: Vec<String>,
    /// Extra measures at each evaluation.
    pub measures: Option<Measures<'a>>,
    /// Called after every round.
    pub observe: &'a mut dyn FnMut(&Status),
}

/// The Elo difference a score stands for (`400 · log10(s / (1 − s))`),
/// `None` at 0 and 1, where it is unbounded.
fn elo_of_score(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| 400.0 * (score / (1.0 - score)).log10())
}

/// The code version recorded with runs and models.
pub fn code_version() -> String {
    match option_env!("SAWAH_GIT_COMMIT") {
        Some(commit) if !commit.is_empty() => format!("{} ({commit})", env!("CARGO_PKG_VERSION")),
        _ => env!("CARGO_PKG_VERSION").to_string(),
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    sawah_agents::files::write_atomically(path, bytes).map_err(|e| file_error(path, e))
}

fn mix(seed: u64, a: u64, b: u64) -> u64 {
    use sawah_engine::seed::{GAMMA, mix64};
    mix64(seed ^ a.wrapping_mul(GAMMA) ^ b.wrapping_mul(0xd1b5_4a32_d192_ed03))
}

/// What a checkpoint holds besides the weights.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CheckpointHeader {
    rules: String,
    rules_digest: String,
    encoder: String,
    widths: Vec<usize>,
    counters: Counters,
    heuristic: HeuristicWeights,
    code_version: String,
}

struct Checkpoint {
    header: CheckpointHeader,
    model: Vec<u8>,
    optimizer: Vec<u8>,
    /// The network the next round's games are played with (model file bytes).
    player: Vec<u8>,
}

fn encode_checkpoint(c: &Checkpoint) -> Result<Vec<u8>, String> {
    let header = serde_json::to_vec(&c.header).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    out.extend_from_slice(CHECKPOINT_MAGIC);
    out.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
    for part in [&header, &c.model, &c.optimizer, &c.player] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
    Ok(out)
}

fn decode_checkpoint(bytes: &[u8]) -> Result<Checkpoint, String> {
    if bytes.len() < 12 || &bytes[..8] != CHECKPOINT_MAGIC {
        return Err("not a sawah training checkpoint (bad magic)".into());
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != CHECKPOINT_VERSION {
        return Err(format!(
            "checkpoint format version {version}; this build reads {CHECKPOINT_VERSION}"
        ));
    }
    let mut rest = &bytes[12..];
    let mut parts = Vec::new();
    for name in ["header", "model", "optimizer", "player"] {
        if rest.len() < 8 {
            return Err(format!("the file ends before its {name}"));
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&rest[..8]);
        let len =
            usize::try_from(u64::from_le_bytes(len)).map_err(|_| format!("{name} too large"))?;
        rest = &rest[8..];
        if rest.len() < len {
            return Err(format!("the file ends inside its {name} (truncated?)"));
        }
        parts.push(rest[..len].to_vec());
        rest = &rest[len..];
    }
    if !rest.is_empty() {
        return Err("trailing bytes after the checkpoint".into());
    }
    let header: CheckpointHeader =
        serde_json::from_slice(&parts[0]).map_err(|e| format!("header: {e}"))?;
    let player = parts.pop().unwrap_or_default();
    let optimizer = parts.pop().unwrap_or_default();
    let model = parts.pop().unwrap_or_default();
    Ok(Checkpoint {
        header,
        model,
        optimizer,
        player,
    })
}

fn model_info<G: HasHeuristic>(
    game: &G,
    encoder: Encoder,
    config: &TrainConfig,
    counters: &Counters,
) -> ModelInfo {
    ModelInfo {
        rules: game.name().to_string(),
        rules_digest: game.rules_digest(),
        encoder: encoder.id().to_string(),
        info: serde_json::json!({
            "training": match config.mode { Mode::SelfPlay => "self-play TD(lambda)", Mode::Distill => "distilled from a solved table" },
            "training_games": counters.games,
            "training_positions": counters.positions,
            "training_seconds": counters.seconds,
            "seed": config.seed,
            "code_version": code_version(),
            "config": config,
        }),
    }
}

/// One round's update: what it trains on and how.
struct RoundUpdate<'a> {
    samples: &'a [Sample],
    batch: usize,
    input_size: usize,
    device: &'a Device,
    shuffle_seed: u64,
    learning_rate: f64,
}

/// One gradient pass over the round's samples in a seeded random order.
/// Returns the model, the mean squared error and the steps taken.
fn train_round(
    mut model: ValueNet,
    optimizer: &mut ModuleOptimizer,
    update: RoundUpdate<'_>,
) -> (ValueNet, f64, u64) {
    let RoundUpdate {
        samples,
        batch,
        input_size,
        device,
        shuffle_seed,
        learning_rate,
    } = update;
    let mut order: Vec<usize> = (0..samples.len()).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(shuffle_seed));
    let mut total = 0.0;
    let mut steps = 0;
    for chunk in order.chunks(batch) {
        let mut inputs = vec![0f32; chunk.len() * input_size];
        let mut targets = Vec::with_capacity(chunk.len());
        for (row, &k) in chunk.iter().enumerate() {
            for &i in &samples[k].active {
                inputs[row * input_size + usize::from(i)] = 1.0;
            }
            targets.push(samples[k].target);
        }
        let x = Tensor::<2>::from_data(TensorData::new(inputs, [chunk.len(), input_size]), device);
        let y = Tensor::<2>::from_data(TensorData::new(targets, [chunk.len(), 1]), device);
        let loss = (model.forward(x) - y).powf_scalar(2.0).mean();
        total += loss
            .clone()
            .into_data()
            .convert::<f64>()
            .try_to_vec::<f64>()
            .ok()
            .and_then(|v| v.first().copied())
            .unwrap_or(f64::NAN)
            * chunk.len() as f64;
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optimizer.step(learning_rate, model, grads);
        steps += 1;
    }
    (model, total / samples.len().max(1) as f64, steps)
}

fn evaluate<G: HasHeuristic + Sync + 'static>(
    game: &G,
    model_path: &Path,
    net: &NeuralNet,
    options: &RunOptions<'_, G>,
    config: &TrainConfig,
    counters: &Counters,
) -> Result<Evaluation, TrainError> {
    let me = AgentSpec::parse(
        &format!("neural:model={}", model_path.display()),
        game.name(),
    )
    .map_err(|e| TrainError::Config(e.to_string()))?;
    let mut results = Vec::new();
    for (k, opponent) in options.opponents.iter().enumerate() {
        let spec = AgentSpec::parse(opponent, game.name())
            .map_err(|e| TrainError::Config(format!("opponent {opponent}: {e}")))?;
        let result = sawah_eval::matches::play_match(
            game,
            &me.clone().into(),
            &spec.into(),
            config.eval_games,
            mix(config.seed, 0xe7a1, k as u64),
        )
        .map_err(|e| TrainError::Config(format!("opponent {opponent}: {e}")))?;
        let score = result.score();
        results.push((opponent.clone(), score.mean, score.low, score.high));
    }
    let mut measures = options
        .measures
        .map(|m| m(net, model_path))
        .unwrap_or_default();
    if config.heuristic_learning_rate > 0.0 {
        let learned = AgentSpec::parse(
            &format!(
                "expectiminimax:depth=1:weights={}",
                options.folder.heuristic().display()
            ),
            game.name(),
        )
        .map_err(|e| TrainError::Config(e.to_string()))?;
        let default = AgentSpec::parse("expectiminimax:depth=1", game.name())
            .map_err(|e| TrainError::Config(e.to_string()))?;
        let result = sawah_eval::matches::play_match(
            game,
            &learned.into(),
            &default.into(),
            config.eval_games,
            mix(config.seed, 0xe7a2, 0),
        )
        .map_err(|e| TrainError::Config(format!("learned heuristic: {e}")))?;
        measures.push((
            "learned_heuristic_score_vs_default".to_string(),
            result.score().mean,
        ));
    }
    Ok(Evaluation {
        games: counters.games,
        results,
        measures,
    })
}

/// The encoding named `id`, if `game` offers it.
fn run_encoder<G: HasHeuristic>(game: &G, id: &str) -> Result<Encoder, TrainError> {
    game.encoder_named(id).ok_or_else(|| {
        let offered: Vec<&str> = game.encoders().iter().map(|e| e.id()).collect();
        TrainError::Config(format!(
            "encoder {id:?}: {} offers {}",
            game.name(),
            offered.join(", ")
        ))
    })
}

/// The run's record: when resuming, read and checked against `game`;
/// otherwise a new one for `config`, written to the (new) run folder.
fn open_record<G: HasHeuristic>(
    game: &G,
    folder: &RunFolder,
    resume: bool,
    config: &TrainConfig,
) -> Result<RunRecord, TrainError> {
    if resume {
        let path = folder.config();
        let record = folder.read_record()?;
        if record.rules != game.name() || record.rules_digest != game.rules_digest() {
            return Err(file_error(
                &path,
                format!(
                    "the run is for {} ({}), not {} ({})",
                    record.rules,
                    record.rules_digest,
                    game.name(),
                    game.rules_digest()
                ),
            ));
        }
        record.config.validate()?;
        Ok(record)
    } else {
        if folder.config().exists() {
            return Err(file_error(
                &folder.dir,
                "already holds a run; resume it with --resume, or choose another --out",
            ));
        }
        config.validate()?;
        let encoder = match &config.encoder {
            Some(id) => run_encoder(game, id)?,
            None => game.default_encoder(),
        };
        // A network to start from is checked before the folder is taken.
        init_network(game, encoder, config)?;
        let record = RunRecord {
            rules: game.name().to_string(),
            rules_digest: game.rules_digest(),
            encoder: encoder.id().to_string(),
            config: config.clone(),
            code_version: code_version(),
        };
        let text =
            serde_json::to_string_pretty(&record).map_err(|e| TrainError::Config(e.to_string()))?;
        write_atomically(&folder.config(), text.as_bytes())?;
        Ok(record)
    }
}

/// Runs (or resumes) training until the settings' budget is spent.
/// Returns the final counters.
pub fn train<G>(game: &G, options: RunOptions<'_, G>) -> Result<Counters, TrainError>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    let mut trainer = Trainer::start(game, options)?;
    let mut samples = play_round(
        game,
        &trainer.config,
        trainer.options.teacher,
        trainer.options.exact,
        &trainer.player,
        trainer.counters.rounds,
    );
    while !trainer.done() {
        samples = trainer.round(samples)?;
    }
    trainer.finish()
}

/// The games of `round`, played by `net` (with the teacher's values as
/// targets when distilling).
fn play_round<G>(
    game: &G,
    config: &TrainConfig,
    teacher: Option<super::selfplay::Teacher<'_, G::Position>>,
    exact: Option<super::selfplay::Exact<'_, G::Position>>,
    net: &NeuralNet,
    round: u64,
) -> Vec<Sample>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    generate(
        net,
        game,
        config.games_per_round,
        config.exploration,
        config.lambda,
        |i| mix(config.seed, round, i),
        super::selfplay::Known {
            teacher: if config.mode == Mode::Distill {
                teacher
            } else {
                None
            },
            exact,
            choice_margin: config.choice_margin,
        },
    )
}

/// The network's layer widths: inputs, `hidden`, one output.
fn layer_widths<G: HasHeuristic>(game: &G, encoder: Encoder, hidden: &[usize]) -> Vec<usize> {
    let mut widths = vec![game.input_size_of(encoder)];
    widths.extend(hidden);
    widths.push(1);
    widths
}

/// The network of the `init` setting's model file, if there is one,
/// checked to be one the run can train: for `game`, `encoder` and the
/// run's layer widths, with the activations [`ValueNet`] has. With
/// `init_from_other_rules` the model may belong to another rule set, as
/// long as its encoder is one `game` offers with the same input size
/// (transfer between related variants).
fn init_network<G: HasHeuristic>(
    game: &G,
    encoder: Encoder,
    config: &TrainConfig,
) -> Result<Option<NeuralNet>, TrainError> {
    let Some(path) = config.init.as_deref().map(Path::new) else {
        return Ok(None);
    };
    let widths = layer_widths(game, encoder, &config.hidden);
    let net = if config.init_from_other_rules {
        NeuralNet::load_file(path)
    } else {
        NeuralNet::load(path, game)
    }
    .map_err(|e| file_error(path, e))?;
    if net.encoder() != encoder || net.widths() != widths {
        return Err(file_error(
            path,
            format!(
                "init: the model is {} with layers {:?}; the run needs {} with layers {widths:?}",
                net.encoder().id(),
                net.widths(),
                encoder.id()
            ),
        ));
    }
    let last = net.layers.len() - 1;
    let trainable = net.layers.iter().enumerate().all(|(k, layer)| {
        layer.activation
            == if k == last {
                Activation::Sigmoid
            } else {
                Activation::Relu
            }
    });
    if !trainable {
        return Err(file_error(
            path,
            "init: training needs ReLU hidden layers and a sigmoid output",
        ));
    }
    Ok(Some(net))
}

/// What a checkpoint holds besides the learner's network and optimizer.
struct Resumed {
    player: NeuralNet,
    heuristic: HeuristicWeights,
    counters: Counters,
}

/// Reads the run's checkpoint at `path` into `model` and `optimizer`, after
/// checking it is for `game` and a network of `widths`.
fn load_checkpoint<G: HasHeuristic>(
    game: &G,
    encoder: Encoder,
    path: &Path,
    widths: &[usize],
    model: &mut ValueNet,
    optimizer: &mut ModuleOptimizer,
) -> Result<Resumed, TrainError> {
    let bytes = fs::read(path).map_err(|e| file_error(path, e))?;
    let checkpoint = decode_checkpoint(&bytes).map_err(|e| file_error(path, e))?;
    if checkpoint.header.widths != widths
        || checkpoint.header.rules_digest != game.rules_digest()
        || checkpoint.header.encoder != encoder.id()
    {
        return Err(file_error(
            path,
            "the checkpoint does not match the run's rule set, encoder or network",
        ));
    }
    let mut store =
        BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(checkpoint.model)));
    model
        .load_from(&mut store)
        .map_err(|e| file_error(path, format!("weights: {e:?}")))?;
    let record =
        OptimizerRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(checkpoint.optimizer))
            .map_err(|e| file_error(path, format!("optimizer: {e:?}")))?;
    let fresh = std::mem::replace(optimizer, AdamConfig::new().init());
    *optimizer = fresh.load_record(record);
    Ok(Resumed {
        player: NeuralNet::from_bytes(&checkpoint.player).map_err(|e| file_error(path, e))?,
        heuristic: checkpoint.header.heuristic,
        counters: checkpoint.header.counters,
    })
}

/// A training run in progress: the learner (network and optimizer), the
/// network the self-play games are played with, the learned heuristic, the
/// counters, and the run folder and TensorBoard writer they go to.
struct Trainer<'g, 'o, G: HasHeuristic> {
    game: &'g G,
    options: RunOptions<'o, G>,
    config: TrainConfig,
    encoder: Encoder,
    widths: Vec<usize>,
    device: Device,
    model: ValueNet,
    optimizer: ModuleOptimizer,
    player: NeuralNet,
    heuristic: HeuristicWeights,
    counters: Counters,
    board: tensorboard_rs::summary_writer::SummaryWriter,
    session_start: Instant,
    seconds_before: f64,
    last_checkpoint: Instant,
    /// The learner's own pool of one thread. burn's CPU backend splits
    /// some operations (sums, large products) over the current rayon pool,
    /// and a float sum split by work stealing comes out in another order
    /// from run to run; on one thread of its own the learner adds in the
    /// same order every time, so the same seed trains the same weights.
    learner: rayon::ThreadPool,
    /// The run folder's lock, held while this process trains.
    _lock: fs::File,
}

/// One round's figures for the logs.
struct RoundFigures {
    loss: f64,
    td_error: f64,
    heuristic_loss: f64,
    learning_rate: f64,
    positions: usize,
    elapsed: f64,
}

impl<'g, 'o, G> Trainer<'g, 'o, G>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    /// Opens the run (new, or resumed from its checkpoint) and its
    /// TensorBoard folder for this process.
    fn start(game: &'g G, options: RunOptions<'o, G>) -> Result<Trainer<'g, 'o, G>, TrainError> {
        // The opponents are checked now, not at the first evaluation.
        for opponent in &options.opponents {
            AgentSpec::parse(opponent, game.name())
                .and_then(|spec| spec.build(game).map(drop))
                .map_err(|e| TrainError::Config(format!("evaluation opponent {opponent}: {e}")))?;
        }
        let folder = &options.folder;
        sawah_engine::files::create_dir_all(&folder.dir).map_err(|e| file_error(&folder.dir, e))?;
        let lock = folder.lock()?;
        let record = open_record(game, folder, options.resume, &options.config)?;
        let config = record.config.clone();
        let encoder = run_encoder(game, &record.encoder)?;
        let widths = layer_widths(game, encoder, &config.hidden);
        let device = Device::flex().autodiff();
        device.seed(config.seed);
        let mut model = ValueNet::new(&widths, &device);
        let mut optimizer = AdamConfig::new().init();
        let resumed = if options.resume && folder.checkpoint().exists() {
            let path = folder.checkpoint();
            Some(load_checkpoint(
                game,
                encoder,
                &path,
                &widths,
                &mut model,
                &mut optimizer,
            )?)
        } else {
            None
        };
        let (player, heuristic, counters) = match resumed {
            Some(resumed) => (resumed.player, resumed.heuristic, resumed.counters),
            None => {
                if let Some(net) = init_network(game, encoder, &config)? {
                    model = ValueNet::from_inference(&net, &device);
                }
                let counters = Counters::default();
                let player = model
                    .to_inference(model_info(game, encoder, &config, &counters))
                    .map_err(|e| TrainError::Config(format!("copying the network: {e}")))?;
                (player, HeuristicWeights::initial(game), counters)
            }
        };
        // One TensorBoard folder per process (two writers in one folder
        // within the same second would overwrite each other's file).
        let tb_dir = folder
            .tensorboard()
            .join(format!("session-{:06}", counters.rounds));
        fs::create_dir_all(&tb_dir).map_err(|e| file_error(&tb_dir, e))?;
        Ok(Trainer {
            game,
            config,
            encoder,
            widths,
            model,
            optimizer,
            player,
            heuristic,
            counters,
            board: tensorboard_rs::summary_writer::SummaryWriter::new(&tb_dir),
            device,
            options,
            session_start: Instant::now(),
            seconds_before: counters.seconds,
            last_checkpoint: Instant::now(),
            learner: rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .thread_name(|_| "learner".into())
                .build()
                .map_err(|e| TrainError::Config(format!("starting the learner's thread: {e}")))?,
            _lock: lock,
        })
    }

    /// Whether the budget (games or minutes) is spent.
    fn done(&self) -> bool {
        let (config, c) = (&self.config, &self.counters);
        (config.games > 0 && c.games >= config.games)
            || (config.minutes > 0.0 && c.seconds >= config.minutes * 60.0)
    }

    /// The learner's network as an inference model.
    fn snapshot(&self) -> Result<NeuralNet, TrainError> {
        self.model
            .to_inference(model_info(
                self.game,
                self.encoder,
                &self.config,
                &self.counters,
            ))
            .map_err(|e| TrainError::Config(format!("copying the network: {e}")))
    }

    /// One round: trains on `samples` while the next round's games are
    /// played, logs it, evaluates and checkpoints when due. Returns the
    /// next round's samples.
    fn round(&mut self, samples: Vec<Sample>) -> Result<Vec<Sample>, TrainError> {
        let round = self.counters.rounds;
        let next_player = self.snapshot()?;
        let round_start = Instant::now();
        let mut heuristic_loss = f64::NAN;
        let config = &self.config;
        let learning_rate =
            config.learning_rate_at(config.progress(self.counters.games, self.counters.seconds));
        let (game, teacher, exact) = (self.game, self.options.teacher, self.options.exact);
        let (heuristic, optimizer) = (&mut self.heuristic, &mut self.optimizer);
        let update = RoundUpdate {
            samples: &samples,
            batch: config.batch,
            input_size: game.input_size_of(self.encoder),
            device: &self.device,
            shuffle_seed: mix(config.seed, 0x5f1e, round),
            learning_rate,
        };
        let model = self.model.clone();
        // Play the next round's games while the learner trains on this one's.
        let (next_samples, (trained, loss, steps)) = std::thread::scope(|scope| {
            let handle =
                scope.spawn(|| play_round(game, config, teacher, exact, &next_player, round + 1));
            if config.heuristic_learning_rate > 0.0 {
                let mut order: Vec<usize> = (0..samples.len()).collect();
                order.shuffle(&mut ChaCha8Rng::seed_from_u64(mix(
                    config.seed,
                    0x4e01,
                    round,
                )));
                heuristic_loss = heuristic.fit(
                    &samples,
                    &order,
                    config.batch,
                    config.heuristic_learning_rate,
                );
            }
            let trained = self
                .learner
                .install(|| train_round(model, optimizer, update));
            (handle.join(), trained)
        });
        let next_samples =
            next_samples.map_err(|_| TrainError::Config("a self-play thread panicked".into()))?;
        self.model = trained;
        let figures = RoundFigures {
            loss,
            td_error: samples
                .iter()
                .map(|s| f64::from((s.target - s.predicted).abs()))
                .sum::<f64>()
                / samples.len().max(1) as f64,
            heuristic_loss,
            learning_rate,
            positions: samples.len(),
            elapsed: round_start.elapsed().as_secs_f64(),
        };
        let counters = &mut self.counters;
        counters.rounds += 1;
        counters.games += self.config.games_per_round;
        counters.positions += samples.len() as u64;
        counters.steps += steps;
        counters.seconds = self.seconds_before + self.session_start.elapsed().as_secs_f64();
        self.log_round(&figures);
        self.player = next_player;
        self.after_round(&figures)?;
        Ok(next_samples)
    }

    /// The round's scalars in TensorBoard.
    fn log_round(&mut self, figures: &RoundFigures) {
        let step = self.counters.games as usize;
        let board = &mut self.board;
        board.add_scalar("train/loss", figures.loss as f32, step);
        board.add_scalar("train/td_error", figures.td_error as f32, step);
        board.add_scalar("train/learning_rate", figures.learning_rate as f32, step);
        if figures.heuristic_loss.is_finite() {
            board.add_scalar("train/heuristic_loss", figures.heuristic_loss as f32, step);
        }
        board.add_scalar(
            "speed/games_per_second",
            (self.config.games_per_round as f64 / figures.elapsed) as f32,
            step,
        );
        board.add_scalar(
            "speed/positions_per_second",
            (figures.positions as f64 / figures.elapsed) as f32,
            step,
        );
    }

    /// After a round: evaluates (and checkpoints) when due or finished,
    /// checkpoints when the last one is old, and reports the round.
    fn after_round(&mut self, figures: &RoundFigures) -> Result<(), TrainError> {
        let finished = self.done();
        let config = &self.config;
        let due = config.eval_every > 0
            && self.counters.games >= self.counters.evaluated_at + config.eval_every;
        let evaluation = if due || finished {
            Some(self.evaluate()?)
        } else {
            None
        };
        let stale =
            self.last_checkpoint.elapsed().as_secs_f64() >= self.config.checkpoint_minutes * 60.0;
        if finished || stale {
            self.save()?;
        }
        self.board.flush();
        (self.options.observe)(&Status {
            counters: self.counters,
            loss: figures.loss,
            td_error: figures.td_error,
            evaluation,
        });
        Ok(())
    }

    /// Checkpoints, then plays the evaluation matches and measures, and
    /// records them in TensorBoard and `evals.jsonl`.
    fn evaluate(&mut self) -> Result<Evaluation, TrainError> {
        self.counters.evaluated_at = self.counters.games;
        self.save()?;
        let current = self.snapshot()?;
        let folder = &self.options.folder;
        let e = evaluate(
            self.game,
            &folder.current_model(),
            &current,
            &self.options,
            &self.config,
            &self.counters,
        )?;
        let step = self.counters.games as usize;
        for (opponent, score, low, high) in &e.results {
            let board = &mut self.board;
            board.add_scalar(&format!("eval/score_vs_{opponent}"), *score as f32, step);
            board.add_scalar(&format!("eval/score_vs_{opponent}_low"), *low as f32, step);
            board.add_scalar(
                &format!("eval/score_vs_{opponent}_high"),
                *high as f32,
                step,
            );
            // The learning curve in Elo, where the score is not 0 or 1.
            if let Some(elo) = elo_of_score(*score) {
                board.add_scalar(&format!("eval/elo_vs_{opponent}"), elo as f32, step);
            }
        }
        for (name, value) in &e.measures {
            self.board
                .add_scalar(&format!("eval/{name}"), *value as f32, step);
        }
        let mut line = serde_json::to_string(&e).map_err(|e| TrainError::Config(e.to_string()))?;
        line.push('\n');
        let path = self.options.folder.evals();
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(|err| file_error(&path, err))?;
        Ok(e)
    }

    /// Writes the checkpoint, the learned heuristic and the current model
    /// (each atomically).
    fn save(&mut self) -> Result<(), TrainError> {
        let mut store = BurnpackStore::from_bytes(None);
        self.model
            .save_into(&mut store)
            .map_err(|e| TrainError::Config(format!("saving weights: {e:?}")))?;
        let model_bytes = store
            .get_bytes()
            .map_err(|e| TrainError::Config(format!("saving weights: {e:?}")))?
            .to_vec();
        let optim_bytes = self
            .optimizer
            .to_record()
            .into_bytes()
            .map_err(|e| TrainError::Config(format!("saving the optimizer: {e:?}")))?
            .to_vec();
        let game = self.game;
        let checkpoint = Checkpoint {
            header: CheckpointHeader {
                rules: game.name().to_string(),
                rules_digest: game.rules_digest(),
                encoder: self.encoder.id().to_string(),
                widths: self.widths.clone(),
                counters: self.counters,
                heuristic: self.heuristic.clone(),
                code_version: code_version(),
            },
            model: model_bytes,
            optimizer: optim_bytes,
            player: self.player.to_bytes()?,
        };
        let bytes = encode_checkpoint(&checkpoint).map_err(TrainError::Config)?;
        let folder = &self.options.folder;
        write_atomically(&folder.checkpoint(), &bytes)?;
        let weights = serde_json::to_string_pretty(&self.heuristic.to_file(game))
            .map_err(|e| TrainError::Config(e.to_string()))?;
        write_atomically(&folder.heuristic(), weights.as_bytes())?;
        write_atomically(&folder.current_model(), &self.snapshot()?.to_bytes()?)?;
        self.last_checkpoint = Instant::now();
        Ok(())
    }

    /// Ends the session: a model file even if no round ran, and the
    /// TensorBoard events flushed. Returns the counters.
    fn finish(mut self) -> Result<Counters, TrainError> {
        if !self.options.folder.current_model().exists() {
            self.save()?;
        }
        self.board.flush();
        Ok(self.counters)
    }
}

#[cfg(test)]
mod tests {
    use super::elo_of_score;

    #[test]
    fn scores_become_elo_differences() {
        assert_eq!(elo_of_score(0.5), Some(0.0));
        // 3 to 1 is 400 · log10(3) ≈ 190.85 Elo.
        assert!((elo_of_score(0.75).unwrap() - 190.848_501_887_864_9).abs() < 1e-9);
        assert!((elo_of_score(0.25).unwrap() + 190.848_501_887_864_9).abs() < 1e-9);
        assert_eq!(elo_of_score(0.0), None);
        assert_eq!(elo_of_score(1.0), None);
    }
}
