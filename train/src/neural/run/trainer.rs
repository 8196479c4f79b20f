//! The training loop: a run opened (new or resumed), its rounds (the next
//! round's games played while the learner trains on this one's), the
//! logs, evaluations and checkpoints, and its end.

use crate::neural::config::{Mode, TrainConfig};
use crate::neural::heuristic::HeuristicWeights;
use crate::neural::net::ValueNet;
use crate::neural::run::checkpoint::{
    Checkpoint, CheckpointHeader, encode_checkpoint, load_checkpoint,
};
use crate::neural::run::error::{TrainError, file_error, write_atomically};
use crate::neural::run::evaluate::{elo_of_score, evaluate};
use crate::neural::run::exchange::{
    DESCRIPTION_FORMAT, DESCRIPTION_VERSION, Description, Exchange, Shares,
};
use crate::neural::run::folder::{Counters, Evaluation, RunFolder, RunRecord, code_version};
use crate::neural::run::network::{
    RoundUpdate, init_network, layer_widths, model_info, run_encoder, train_round,
};
use crate::neural::run::options::{RunOptions, Status};
use crate::neural::run::seeds::mix;
use crate::neural::selfplay::{Sample, generate};
use burn::optim::{AdamConfig, ModuleOptimizer};
use burn::prelude::*;
use burn::store::{BurnpackStore, ModuleSnapshot};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use sawah_agents::AgentSpec;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::{Encoder, NeuralNet};
use std::fs;
use std::io::Write;
use std::ops::Range;
use std::time::Instant;

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
    let (mut samples, shares) = play_round(
        game,
        &trainer.config,
        trainer.options.teacher,
        trainer.options.exact,
        trainer.exchange.as_ref(),
        &trainer.player,
        trainer.counters.rounds,
    )?;
    trainer.add_shares(shares);
    while !trainer.done() {
        samples = trainer.round(samples)?;
    }
    trainer.finish()
}
/// Games `games` of `round`, played by `net` (with the teacher's values as
/// targets when distilling), in game order. Each game is seeded by its
/// round and number alone, so any split of a round's games into ranges,
/// played anywhere, gives the round's samples range by range.
pub(super) fn play_games<G>(
    game: &G,
    config: &TrainConfig,
    teacher: Option<crate::neural::selfplay::Teacher<'_, G::Position>>,
    exact: Option<crate::neural::selfplay::Exact<'_, G::Position>>,
    net: &NeuralNet,
    round: u64,
    games: Range<u64>,
) -> Vec<Sample>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    // Search mode: the targets are the network's own values searched a
    // few rolls deep (this round's network, the one playing the games).
    let search = |p: &G::Position| {
        crate::neural::backup::backed_up_value(net, game, p, config.search_depth, exact)
    };
    let first = games.start;
    generate(
        net,
        game,
        games.end.saturating_sub(first),
        config.exploration,
        config.lambda,
        |i| mix(config.seed, round, first + i),
        crate::neural::selfplay::Known {
            teacher: match config.mode {
                Mode::Distill => teacher,
                Mode::Search => Some(&search),
                Mode::SelfPlay => None,
            },
            exact,
            stop_at_exact: config.endgame_stops,
            choice_margin: config.choice_margin,
        },
    )
}

/// The samples of `round`, played by `net`: here, or shared out through
/// the exchange (each share that does not come played here).
fn play_round<G>(
    game: &G,
    config: &TrainConfig,
    teacher: Option<crate::neural::selfplay::Teacher<'_, G::Position>>,
    exact: Option<crate::neural::selfplay::Exact<'_, G::Position>>,
    exchange: Option<&Exchange>,
    net: &NeuralNet,
    round: u64,
) -> Result<(Vec<Sample>, Shares), TrainError>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    let play = |games: Range<u64>| play_games(game, config, teacher, exact, net, round, games);
    match exchange {
        None => Ok((play(0..config.games_per_round), Shares::default())),
        Some(exchange) => exchange.round(round, &net.to_bytes()?, play),
    }
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
    /// Where the rounds are shared out, when they are.
    exchange: Option<Exchange>,
    /// How this session's rounds were shared.
    shares: Shares,
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
        let exchange = match &options.sharing {
            Some(sharing) => Some(Exchange::open(
                &folder.dir,
                Description {
                    format: DESCRIPTION_FORMAT.into(),
                    format_version: DESCRIPTION_VERSION,
                    rules: game.name().to_string(),
                    rules_spec: sharing.rules_spec.clone(),
                    shards: sharing.shards,
                    games_per_round: config.games_per_round,
                },
                sharing.wait,
            )?),
            None => None,
        };
        Ok(Trainer {
            exchange,
            shares: Shares::default(),
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
        let exchange = self.exchange.as_ref();
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
            let handle = scope.spawn(|| {
                play_round(
                    game,
                    config,
                    teacher,
                    exact,
                    exchange,
                    &next_player,
                    round + 1,
                )
            });
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
        let (next_samples, shares) = next_samples
            .map_err(|_| TrainError::Config("a self-play thread panicked".into()))??;
        self.add_shares(shares);
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
        sawah_agents::files::open_for_writing(&path, sawah_agents::files::Writing::Append)
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

    /// Counts a round's shares.
    fn add_shares(&mut self, shares: Shares) {
        self.shares.from_shards += shares.from_shards;
        self.shares.played_here += shares.played_here;
    }

    /// Ends the session: a model file even if no round ran, the shards
    /// told, and the TensorBoard events flushed. Returns the counters.
    fn finish(mut self) -> Result<Counters, TrainError> {
        if !self.options.folder.current_model().exists() {
            self.save()?;
        }
        if let Some(exchange) = &self.exchange {
            exchange.finish()?;
            println!(
                "shared rounds: {} shares played by shards, {} here",
                self.shares.from_shards, self.shares.played_here
            );
        }
        self.board.flush();
        Ok(self.counters)
    }
}
