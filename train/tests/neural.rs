//! Neural training: the exported network computes what burn computes, a
//! short run writes everything it promises, and export refuses a folder
//! that is not a run.

use burn::prelude::*;
use sawah_agents::neural::{Encode, Encoder, ModelInfo, NeuralNet};
use sawah_engine::race;
use sawah_engine::senet::Senet;
use sawah_engine::{Codec, DiceSource, Game};
use sawah_train::neural::net::ValueNet;
use sawah_train::neural::{RunFolder, RunOptions, TrainConfig, train};

fn positions<G: Game>(game: &G, count: usize) -> Vec<G::Position> {
    let mut dice = DiceSource::from_seed(9);
    let mut out = Vec::new();
    let mut position = game.start();
    while out.len() < count {
        if game.winner(&position).is_some() {
            position = game.start();
            continue;
        }
        out.push(position);
        let roll = dice.roll(game.dice());
        let moves = game.legal_moves(&position, roll);
        position = match moves.first() {
            Some(_) => {
                game.apply(&position, moves[dice.below(moves.len())])
                    .position
            }
            None => game.pass(&position),
        };
    }
    out
}

/// For every encoding the game offers.
fn inference_equals_burn<G: Encode + Codec>(game: &G, hidden: &[usize]) {
    for &encoder in game.encoders() {
        inference_equals_burn_with(game, encoder, hidden);
    }
}

fn inference_equals_burn_with<G: Encode + Codec>(game: &G, encoder: Encoder, hidden: &[usize]) {
    let device = Device::flex();
    device.seed(3);
    let mut widths = vec![game.input_size_of(encoder)];
    widths.extend_from_slice(hidden);
    widths.push(1);
    let model = ValueNet::new(&widths, &device);
    let info = ModelInfo {
        rules: game.name().into(),
        rules_digest: game.rules_digest(),
        encoder: encoder.id().into(),
        info: serde_json::json!({}),
    };
    let net = model.to_inference(info).unwrap();
    let net = NeuralNet::from_bytes(&net.to_bytes().unwrap()).unwrap();
    let positions = positions(game, 500);
    let n = game.input_size_of(encoder);
    let mut inputs = vec![0f32; positions.len() * n];
    for (k, p) in positions.iter().enumerate() {
        game.encode_dense_with(encoder, p, &mut inputs[k * n..(k + 1) * n]);
    }
    let batch = Tensor::<2>::from_data(TensorData::new(inputs, [positions.len(), n]), &device);
    let burn_out: Vec<f32> = model
        .forward(batch)
        .into_data()
        .try_to_vec::<f32>()
        .unwrap();
    for (p, expected) in positions.iter().zip(burn_out) {
        let ours = net.evaluate(game, p) as f32;
        assert!((ours - expected).abs() <= 1e-5, "{ours} vs burn {expected}");
    }
}

#[test]
fn the_fast_forward_pass_equals_burn_within_1e_5() {
    inference_equals_burn(&race::preset("ur").unwrap(), &[64]);
    inference_equals_burn(&race::preset("masters").unwrap(), &[128, 64]);
    inference_equals_burn(&Senet::new(), &[64, 32]);
}

#[test]
fn a_short_run_learns_to_beat_random_and_exports_a_loadable_model() {
    let rules = race::preset("ur-3").unwrap();
    let dir = std::env::temp_dir().join(format!("sawah-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = TrainConfig {
        games: 3000,
        minutes: 0.0,
        games_per_round: 100,
        eval_every: 0,
        eval_games: 200,
        ..TrainConfig::default()
    };
    let mut rounds = 0;
    let mut observe = |_: &sawah_train::neural::Status| rounds += 1;
    let counters = train(
        &rules,
        RunOptions {
            folder: RunFolder { dir: dir.clone() },
            config,
            resume: false,
            teacher: None,
            exact: None,
            opponents: vec!["random".into()],
            measures: None,
            observe: &mut observe,
            sharing: None,
        },
    )
    .unwrap();
    assert_eq!(counters.games, 3000);
    assert_eq!(rounds, 30);
    for file in [
        "config.json",
        "checkpoint.bin",
        "current.safetensors",
        "evals.jsonl",
    ] {
        assert!(dir.join(file).exists(), "{file}");
    }
    let evals = std::fs::read_to_string(dir.join("evals.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(evals.lines().last().unwrap()).unwrap();
    let score = last["results"][0][1].as_f64().unwrap();
    assert!(
        score > 0.7,
        "after 3000 games the network should beat random: {last}"
    );
    let tb = std::fs::read_dir(dir.join("tb/session-000000"))
        .unwrap()
        .count();
    assert_eq!(tb, 1, "one TensorBoard event file");
    // Export: a model file the agents load, and its manifest entry.
    let out = dir.join("ur-3.safetensors");
    let entry = sawah_train::neural::export::export(&dir, &out).unwrap();
    assert_eq!(entry.rules, "ur-3");
    assert_eq!(entry.training_games, 3000);
    assert_eq!(entry.sha256.len(), 64);
    assert!(dir.join("ur-3.safetensors.json").exists());
    let spec =
        sawah_agents::AgentSpec::parse(&format!("neural:model={}", out.display()), "ur-3").unwrap();
    assert!(spec.build(&rules).is_ok());
    // A new run refuses a folder that holds one.
    let mut observe = |_: &sawah_train::neural::Status| {};
    let err = train(
        &rules,
        RunOptions {
            folder: RunFolder { dir: dir.clone() },
            config: TrainConfig::default(),
            resume: false,
            teacher: None,
            exact: None,
            opponents: vec![],
            measures: None,
            observe: &mut observe,
            sharing: None,
        },
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("--resume"), "{err}");
    let err = sawah_train::neural::export::export(&dir.join("nothing"), &out).unwrap_err();
    assert!(
        matches!(&err, sawah_train::neural::run::TrainError::File { path, .. } if path.ends_with("config.json")),
        "{err}"
    );
    assert!(err.to_string().contains("run folder"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_senet_run_trains_and_exports_with_the_features_encoding_and_refuses_others() {
    let senet = Senet::new();
    let dir = std::env::temp_dir().join(format!("sawah-train-features-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |config: TrainConfig, resume: bool| {
        let mut observe = |_: &sawah_train::neural::Status| {};
        train(
            &senet,
            RunOptions {
                folder: RunFolder { dir: dir.clone() },
                config,
                resume,
                teacher: None,
                exact: None,
                opponents: vec![],
                measures: None,
                observe: &mut observe,
                sharing: None,
            },
        )
    };
    let config = TrainConfig::default()
        .with_overrides(&[
            "encoder=senet-features-v1".into(),
            "games=20".into(),
            "minutes=0".into(),
            "games_per_round=10".into(),
            "eval_every=0".into(),
            "eval_games=2".into(),
            "hidden=[8]".into(),
        ])
        .unwrap();
    assert_eq!(run(config.clone(), false).unwrap().games, 20);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(record["encoder"], "senet-features-v1");
    // Resuming keeps the run's encoding (the checkpoint says which).
    let longer = TrainConfig {
        games: 30,
        ..config.clone()
    };
    std::fs::write(
        dir.join("config.json"),
        serde_json::to_string(&serde_json::json!({
            "rules": record["rules"], "rules_digest": record["rules_digest"],
            "encoder": record["encoder"], "config": longer, "code_version": record["code_version"],
        }))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(run(TrainConfig::default(), true).unwrap().games, 30);
    let out = dir.join("senet.safetensors");
    let entry = sawah_train::neural::export::export(&dir, &out).unwrap();
    assert_eq!(entry.encoder, "senet-features-v1");
    assert_eq!(entry.input_size, 246);
    let net = NeuralNet::load(&out, &senet).unwrap();
    assert_eq!(net.encoder(), Encoder::SenetFeatures);
    // An encoding the rule set does not offer is refused by name.
    std::fs::remove_dir_all(&dir).unwrap();
    let race_only = TrainConfig {
        encoder: Some("race-onehot-v1".into()),
        ..config
    };
    let err = run(race_only, false).err().unwrap().to_string();
    assert!(
        err.contains("race-onehot-v1") && err.contains("senet-features-v1"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
