//! A training run: the loop, its folder, checkpoints, TensorBoard scalars
//! and evaluations.
//!
//! The folder holds `config.json` (the resolved settings, rule set and code
//! version), `checkpoint.bin` (written atomically every few minutes and at
//! the end), `current.safetensors` (the latest weights as a model file),
//! `evals.jsonl` (one line per evaluation) and `tb/` (TensorBoard event
//! files, one sub-folder per process so a resumed run never overwrites the
//! events of the run before).
//!
//! Rounds: the games of round r + 1 are played (rayon, both cores) with the
//! network as it was before round r's update, while the learner trains on
//! round r's positions. Everything follows from the seed and the round
//! number, and a checkpoint keeps the network the next round's games are
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
use sawah_agents::neural::{ModelInfo, NeuralNet};
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
    /// The learned weights of the hand-made evaluation.
    pub fn heuristic(&self) -> PathBuf {
        self.dir.join("heuristic.json")
    }
    /// TensorBoard event folders.
    pub fn tensorboard(&self) -> PathBuf {
        self.dir.join("tb")
    }
}

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
    /// Opponents at each evaluation (specs).
    pub opponents: Vec<String>,
    /// Extra measures at each evaluation.
    pub measures: Option<Measures<'a>>,
    /// Called after every round.
    pub observe: &'a mut dyn FnMut(&Status),
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
    let mut z =
        seed ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ b.wrapping_mul(0xd1b5_4a32_d192_ed03);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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

fn model_info<G: HasHeuristic>(game: &G, config: &TrainConfig, counters: &Counters) -> ModelInfo {
    ModelInfo {
        rules: game.name().to_string(),
        rules_digest: game.rules_digest(),
        encoder: game.encoder_id().to_string(),
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
            &me,
            &spec,
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
            &learned,
            &default,
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
        let record = RunRecord {
            rules: game.name().to_string(),
            rules_digest: game.rules_digest(),
            encoder: game.encoder_id().to_string(),
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
    let folder = options.folder.clone();
    fs::create_dir_all(&folder.dir).map_err(|e| file_error(&folder.dir, e))?;
    let record = open_record(game, &folder, options.resume, &options.config)?;
    let config = record.config.clone();
    let input_size = game.input_size();
    let mut widths = vec![input_size];
    widths.extend(&config.hidden);
    widths.push(1);

    let device = Device::flex().autodiff();
    device.seed(config.seed);
    let mut model = ValueNet::new(&widths, &device);
    let mut optimizer = AdamConfig::new().init();
    let mut counters = Counters::default();
    let mut player: Option<NeuralNet> = None;
    let mut heuristic = HeuristicWeights::initial(game);
    if options.resume && folder.checkpoint().exists() {
        let path = folder.checkpoint();
        let bytes = fs::read(&path).map_err(|e| file_error(&path, e))?;
        let checkpoint = decode_checkpoint(&bytes).map_err(|e| file_error(&path, e))?;
        if checkpoint.header.widths != widths
            || checkpoint.header.rules_digest != game.rules_digest()
        {
            return Err(file_error(
                &path,
                "the checkpoint does not match the run's rule set or network",
            ));
        }
        let mut store =
            BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(checkpoint.model)));
        model
            .load_from(&mut store)
            .map_err(|e| file_error(&path, format!("weights: {e:?}")))?;
        let optim_record =
            OptimizerRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(checkpoint.optimizer))
                .map_err(|e| file_error(&path, format!("optimizer: {e:?}")))?;
        optimizer = optimizer.load_record(optim_record);
        player = Some(NeuralNet::from_bytes(&checkpoint.player).map_err(|e| file_error(&path, e))?);
        counters = checkpoint.header.counters;
        heuristic = checkpoint.header.heuristic;
    }

    // One TensorBoard folder per process (two writers in one folder within
    // the same second would overwrite each other's file).
    let tb_dir = folder
        .tensorboard()
        .join(format!("session-{:06}", counters.rounds));
    fs::create_dir_all(&tb_dir).map_err(|e| file_error(&tb_dir, e))?;
    let mut board = tensorboard_rs::summary_writer::SummaryWriter::new(&tb_dir);

    let info = |counters: &Counters| model_info(game, &config, counters);
    let snapshot = |model: &ValueNet, counters: &Counters| -> Result<NeuralNet, TrainError> {
        model
            .to_inference(info(counters))
            .map_err(|e| TrainError::Config(format!("copying the network: {e}")))
    };
    let mut player = match player {
        Some(p) => p,
        None => snapshot(&model, &counters)?,
    };
    let session_start = Instant::now();
    let seconds_before = counters.seconds;
    let mut last_checkpoint = Instant::now();
    let teacher = options.teacher;
    let play_round = |net: &NeuralNet, round: u64| -> Vec<Sample> {
        generate(
            net,
            game,
            config.games_per_round,
            config.exploration,
            config.lambda,
            |i| mix(config.seed, round, i),
            if config.mode == Mode::Distill {
                teacher
            } else {
                None
            },
        )
    };
    let done = |c: &Counters| {
        (config.games > 0 && c.games >= config.games)
            || (config.minutes > 0.0 && c.seconds >= config.minutes * 60.0)
    };
    let save = |model: &ValueNet,
                optimizer: &ModuleOptimizer,
                player: &NeuralNet,
                heuristic: &HeuristicWeights,
                counters: &Counters|
     -> Result<(), TrainError> {
        let mut store = BurnpackStore::from_bytes(None);
        model
            .save_into(&mut store)
            .map_err(|e| TrainError::Config(format!("saving weights: {e:?}")))?;
        let model_bytes = store
            .get_bytes()
            .map_err(|e| TrainError::Config(format!("saving weights: {e:?}")))?
            .to_vec();
        let optim_bytes = optimizer
            .to_record()
            .into_bytes()
            .map_err(|e| TrainError::Config(format!("saving the optimizer: {e:?}")))?
            .to_vec();
        let checkpoint = Checkpoint {
            header: CheckpointHeader {
                rules: game.name().to_string(),
                rules_digest: game.rules_digest(),
                encoder: game.encoder_id().to_string(),
                widths: widths.clone(),
                counters: *counters,
                heuristic: heuristic.clone(),
                code_version: code_version(),
            },
            model: model_bytes,
            optimizer: optim_bytes,
            player: player
                .to_bytes()
                .map_err(|e| TrainError::Config(e.to_string()))?,
        };
        let bytes = encode_checkpoint(&checkpoint).map_err(TrainError::Config)?;
        write_atomically(&folder.checkpoint(), &bytes)?;
        let weights = serde_json::to_string_pretty(&heuristic.to_file(game))
            .map_err(|e| TrainError::Config(e.to_string()))?;
        write_atomically(&folder.heuristic(), weights.as_bytes())?;
        let current = snapshot(model, counters)?;
        write_atomically(
            &folder.current_model(),
            &current
                .to_bytes()
                .map_err(|e| TrainError::Config(e.to_string()))?,
        )
    };

    let mut samples = play_round(&player, counters.rounds);
    while !done(&counters) {
        let round = counters.rounds;
        let next_player = snapshot(&model, &counters)?;
        let round_start = Instant::now();
        let mut heuristic_loss = f64::NAN;
        let learning_rate =
            config.learning_rate_at(config.progress(counters.games, counters.seconds));
        // Play the next round's games while the learner trains on this one's.
        let (next_samples, (trained, loss, steps)) = std::thread::scope(|scope| {
            let handle = scope.spawn(|| play_round(&next_player, round + 1));
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
            let trained = train_round(
                model.clone(),
                &mut optimizer,
                RoundUpdate {
                    samples: &samples,
                    batch: config.batch,
                    input_size,
                    device: &device,
                    shuffle_seed: mix(config.seed, 0x5f1e, round),
                    learning_rate,
                },
            );
            (handle.join(), trained)
        });
        let next_samples =
            next_samples.map_err(|_| TrainError::Config("a self-play thread panicked".into()))?;
        model = trained;
        let td_error = samples
            .iter()
            .map(|s| f64::from((s.target - s.predicted).abs()))
            .sum::<f64>()
            / samples.len().max(1) as f64;
        let elapsed = round_start.elapsed().as_secs_f64();
        counters.rounds += 1;
        counters.games += config.games_per_round;
        counters.positions += samples.len() as u64;
        counters.steps += steps;
        counters.seconds = seconds_before + session_start.elapsed().as_secs_f64();
        let step = counters.games as usize;
        board.add_scalar("train/loss", loss as f32, step);
        board.add_scalar("train/td_error", td_error as f32, step);
        board.add_scalar("train/learning_rate", learning_rate as f32, step);
        if heuristic_loss.is_finite() {
            board.add_scalar("train/heuristic_loss", heuristic_loss as f32, step);
        }
        board.add_scalar(
            "speed/games_per_second",
            (config.games_per_round as f64 / elapsed) as f32,
            step,
        );
        board.add_scalar(
            "speed/positions_per_second",
            (samples.len() as f64 / elapsed) as f32,
            step,
        );
        samples = next_samples;
        player = next_player;

        let finished = done(&counters);
        let mut evaluation = None;
        if (config.eval_every > 0 && counters.games >= counters.evaluated_at + config.eval_every)
            || finished
        {
            counters.evaluated_at = counters.games;
            save(&model, &optimizer, &player, &heuristic, &counters)?;
            last_checkpoint = Instant::now();
            let current = snapshot(&model, &counters)?;
            let e = evaluate(
                game,
                &folder.current_model(),
                &current,
                &options,
                &config,
                &counters,
            )?;
            for (opponent, score, low, high) in &e.results {
                board.add_scalar(&format!("eval/score_vs_{opponent}"), *score as f32, step);
                board.add_scalar(&format!("eval/score_vs_{opponent}_low"), *low as f32, step);
                board.add_scalar(
                    &format!("eval/score_vs_{opponent}_high"),
                    *high as f32,
                    step,
                );
            }
            for (name, value) in &e.measures {
                board.add_scalar(&format!("eval/{name}"), *value as f32, step);
            }
            let mut line =
                serde_json::to_string(&e).map_err(|e| TrainError::Config(e.to_string()))?;
            line.push('\n');
            let path = folder.evals();
            fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .and_then(|mut f| f.write_all(line.as_bytes()))
                .map_err(|err| file_error(&path, err))?;
            evaluation = Some(e);
        }
        if finished || last_checkpoint.elapsed().as_secs_f64() >= config.checkpoint_minutes * 60.0 {
            save(&model, &optimizer, &player, &heuristic, &counters)?;
            last_checkpoint = Instant::now();
        }
        board.flush();
        (options.observe)(&Status {
            counters,
            loss,
            td_error,
            evaluation,
        });
    }
    if !folder.current_model().exists() {
        save(&model, &optimizer, &player, &heuristic, &counters)?;
    }
    board.flush();
    Ok(counters)
}
