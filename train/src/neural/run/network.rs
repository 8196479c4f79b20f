//! The learner's network: its shape, where it starts (fresh or from a
//! model file), the record it carries, and one round's gradient pass.

use crate::neural::config::{Mode, TrainConfig};
use crate::neural::net::ValueNet;
use crate::neural::run::error::{TrainError, file_error};
use crate::neural::run::folder::{Counters, code_version};
use crate::neural::selfplay::Sample;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::{Activation, Encoder, ModelInfo, NeuralNet};
use std::path::Path;

pub(super) fn model_info<G: HasHeuristic>(
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
            "training": match config.mode { Mode::SelfPlay => "self-play TD(lambda)", Mode::Distill => "distilled from a solved table", Mode::Search => "expert iteration: targets from search" },
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
pub(super) struct RoundUpdate<'a> {
    pub(super) samples: &'a [Sample],
    pub(super) batch: usize,
    pub(super) input_size: usize,
    pub(super) device: &'a Device,
    pub(super) shuffle_seed: u64,
    pub(super) learning_rate: f64,
}

/// One gradient pass over the round's samples in a seeded random order.
/// Returns the model, the mean squared error and the steps taken.
pub(super) fn train_round(
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
/// The encoding named `id`, if `game` offers it.
pub(super) fn run_encoder<G: HasHeuristic>(game: &G, id: &str) -> Result<Encoder, TrainError> {
    game.encoder_named(id).ok_or_else(|| {
        let offered: Vec<&str> = game.encoders().iter().map(|e| e.id()).collect();
        TrainError::Config(format!(
            "encoder {id:?}: {} offers {}",
            game.name(),
            offered.join(", ")
        ))
    })
}
/// The network's layer widths: inputs, `hidden`, one output.
pub(super) fn layer_widths<G: HasHeuristic>(
    game: &G,
    encoder: Encoder,
    hidden: &[usize],
) -> Vec<usize> {
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
pub(super) fn init_network<G: HasHeuristic>(
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
