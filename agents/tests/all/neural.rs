//! Neural models without a training framework: the file round-trips, the
//! sparse forward pass equals the dense one, loaders refuse wrong or broken
//! files with a message and never panic, and a model plays through a spec.

use proptest::prelude::*;
use sawah_agents::AgentSpec;
use sawah_agents::neural::{Encode, Encoder, NeuralNet};
use sawah_engine::race::{self, RuleSet};
use sawah_engine::senet::Senet;
use sawah_engine::{Codec, DiceSource, Game};

/// A network with weights from a small deterministic generator.
fn random_net<G: Encode + Codec>(game: &G, hidden: &[usize], seed: u64) -> NeuralNet {
    NeuralNet::with_random_weights(game, hidden, seed).unwrap()
}

fn positions<G: Game>(game: &G, count: usize, seed: u64) -> Vec<G::Position> {
    let mut dice = DiceSource::from_seed(seed);
    let mut out = Vec::new();
    let mut position = game.start();
    while out.len() < count {
        if game.winner(&position).is_some() {
            position = game.start();
        }
        out.push(position);
        let roll = dice.roll(game.dice());
        let moves = game.legal_moves(&position, roll);
        position = if moves.is_empty() {
            game.pass(&position)
        } else {
            let mv = moves[dice.below(moves.len())];
            game.apply(&position, mv).position
        };
    }
    out
}

/// For every encoding the game offers.
fn sparse_equals_dense<G: Encode + Codec>(game: &G) {
    // Widths below, at and past multiples of the fast path's block of
    // outputs, so both its blocks and its tail are checked.
    let shapes: [&[usize]; 3] = [&[32, 16], &[256, 128], &[100, 70]];
    for (&encoder, hidden) in game.encoders().iter().flat_map(|e| shapes.map(|h| (e, h))) {
        let net = NeuralNet::with_random_weights_for(game, encoder, hidden, 7).unwrap();
        net.check_for(game).unwrap();
        assert_eq!(net.encoder(), encoder);
        let mut dense = vec![0f32; game.input_size_of(encoder)];
        for position in positions(game, 2000, 3) {
            game.encode_dense_with(encoder, &position, &mut dense);
            let reference = net.forward_dense(&dense);
            let fast = net.evaluate(game, &position) as f32;
            // The fast path adds the same terms in the same order.
            assert_eq!(reference.to_bits(), fast.to_bits(), "{reference} vs {fast}");
            assert!((0.0..=1.0).contains(&fast));
        }
    }
}

#[test]
fn the_sparse_forward_pass_equals_the_dense_one() {
    sparse_equals_dense(&race::preset("ur").unwrap());
    sparse_equals_dense(&race::preset("masters").unwrap());
    sparse_equals_dense(&Senet::new());
}

#[test]
fn a_model_round_trips_through_its_file_form() {
    let rules = race::preset("ur").unwrap();
    let net = random_net(&rules, &[64], 1);
    let bytes = net.to_bytes().unwrap();
    let back = NeuralNet::from_bytes(&bytes).unwrap();
    assert_eq!(back, net);
    assert_eq!(back.widths(), vec![60, 64, 1]);
    assert_eq!(back.parameters(), 60 * 64 + 64 + 64 + 1);
    back.check_for(&rules).unwrap();
}

#[test]
fn a_model_for_another_rule_set_or_encoding_is_refused() {
    let ur = race::preset("ur").unwrap();
    let net = random_net(&ur, &[8], 1);
    let masters: RuleSet = race::preset("masters").unwrap();
    let err = net.check_for(&masters).unwrap_err().to_string();
    assert!(err.contains("ur") && err.contains("masters"), "{err}");
    let err = net.check_for(&Senet::new()).unwrap_err().to_string();
    assert!(err.contains("senet"), "{err}");
    let mut other = net.clone();
    other.info.encoder = "race-onehot-v0".into();
    let err = other.check_for(&ur).unwrap_err().to_string();
    assert!(err.contains("race-onehot-v0"), "{err}");
    // A file naming an encoding this build does not know is refused on reading.
    let err = NeuralNet::from_bytes(&other.to_bytes().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown encoder") && err.contains("race-onehot-v0"),
        "{err}"
    );
    // Senet's features encoding is Senet's only: a race rule set refuses it,
    // and Senet refuses a features model whose inputs do not add up.
    let senet = Senet::new();
    let features =
        NeuralNet::with_random_weights_for(&senet, Encoder::SenetFeatures, &[8], 1).unwrap();
    features.check_for(&senet).unwrap();
    let mut for_ur = features.clone();
    for_ur.info.rules = "ur".into();
    for_ur.info.rules_digest = ur.rules_digest();
    let err = for_ur.check_for(&ur).unwrap_err().to_string();
    assert!(err.contains("senet-features-v1"), "{err}");
    let mut onehot_sized = net.clone();
    onehot_sized.info = features.info.clone();
    let err = NeuralNet::from_bytes(&onehot_sized.to_bytes().unwrap())
        .unwrap()
        .check_for(&senet)
        .unwrap_err()
        .to_string();
    assert!(err.contains("246 inputs"), "{err}");
}

#[test]
fn a_neural_agent_plays_through_its_spec() {
    let rules = race::preset("ur").unwrap();
    let net = random_net(&rules, &[16], 5);
    let dir = std::env::temp_dir().join(format!("sawah-neural-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ur.safetensors");
    std::fs::write(&path, net.to_bytes().unwrap()).unwrap();
    for text in [
        format!("neural:model={}", path.display()),
        format!("neural:model={}:depth=1:noise=0.01", path.display()),
    ] {
        let spec = AgentSpec::parse(&text, "ur").unwrap();
        assert_eq!(AgentSpec::parse(&spec.to_string(), "ur").unwrap(), spec);
        let mut agent = spec.build(&rules).unwrap();
        let start = rules.start();
        let moves = rules.legal_moves(&start, 2);
        let mv = agent.choose(&rules, &start, 2, &moves);
        assert!(moves.contains(&mv));
    }
    let err = AgentSpec::parse("neural", "ur")
        .unwrap()
        .build(&rules)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("model"), "{err}");
    let masters = race::preset("masters").unwrap();
    let err = AgentSpec::parse(&format!("neural:model={}", path.display()), "masters")
        .unwrap()
        .build(&masters)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("the model is for"), "{err}");
    let err = AgentSpec::parse("neural:model=/no/such/file", "ur")
        .unwrap()
        .build(&rules)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("/no/such/file"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

proptest! {
    /// Damaged files: cut anywhere or with a byte changed, a model loads
    /// (possibly with other weights) or fails with an error, never a panic.
    #[test]
    fn damaged_model_files_never_panic(cut in 0usize..5000, at in 0usize..5000, byte in any::<u8>()) {
        let rules = race::preset("ur-2").unwrap();
        let bytes = random_net(&rules, &[8], 2).to_bytes().unwrap();
        let _ = NeuralNet::from_bytes(&bytes[..cut.min(bytes.len())]);
        let mut changed = bytes.clone();
        let at = at % changed.len();
        changed[at] = byte;
        if let Ok(net) = NeuralNet::from_bytes(&changed) {
            let _ = net.evaluate(&rules, &rules.start());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = NeuralNet::from_bytes(&bytes);
    }
}

#[test]
fn learned_heuristic_weights_load_and_are_checked() {
    use sawah_agents::heuristic::{HasHeuristic, WEIGHTS_FORMAT, WeightsFile};
    let rules = race::preset("ur").unwrap();
    let dir = std::env::temp_dir().join(format!("sawah-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.json");
    let mut file = WeightsFile {
        format: WEIGHTS_FORMAT.into(),
        rules: "ur".into(),
        features: vec!["race", "danger", "threat", "safe_marks", "extra_rolls"]
            .into_iter()
            .map(String::from)
            .collect(),
        bias: 0.1,
        weights: vec![5.0, -0.5, 1.0, 0.5, 0.2],
    };
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    let name = path.to_str().unwrap();
    let files = sawah_agents::assets::FileAssets;
    let h = rules.heuristic_from_assets(name, &files).unwrap();
    assert_eq!(RuleSet::heuristic_weights(&h).weights, file.weights);
    let spec =
        AgentSpec::parse(&format!("expectiminimax:weights={}", path.display()), "ur").unwrap();
    assert!(spec.build(&rules).is_ok());
    // Other rule set, other features, a weight that is not finite: refused by name.
    let err = race::preset("masters")
        .unwrap()
        .heuristic_from_assets(name, &files)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("weights for ur"), "{err}");
    let typed = race::preset("masters")
        .unwrap()
        .heuristic_from_assets(name, &files)
        .err()
        .unwrap();
    assert!(
        matches!(
            typed,
            sawah_agents::SpecError::Weights {
                problem: sawah_agents::heuristic::WeightsProblem::OtherRules { .. },
                ..
            }
        ),
        "{typed:?}"
    );
    file.features.pop();
    file.weights.pop();
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    let err = rules
        .heuristic_from_assets(name, &files)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("features"), "{err}");
    std::fs::write(&path, "{\"format\":1}").unwrap();
    assert!(rules.heuristic_from_assets(name, &files).is_err());
    std::fs::remove_dir_all(dir).unwrap();
}
