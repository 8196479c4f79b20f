//! The models manifest: levels resolve to specs with full model paths, and
//! a missing file, a changed byte, a model for another rule set or a bad
//! manifest are refused with a message.

use sawah_agents::AgentSpec;
use sawah_agents::manifest::{MANIFEST_FILE, Models};
use sawah_agents::neural::NeuralNet;
use sawah_engine::race;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sawah-manifest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A models folder with an ur model at level hard and a heuristic at easy.
fn shipped(name: &str) -> (PathBuf, Vec<u8>) {
    let dir = folder(name);
    let rules = race::preset("ur").unwrap();
    let bytes = NeuralNet::with_random_weights(&rules, &[8], 1)
        .unwrap()
        .to_bytes()
        .unwrap();
    std::fs::write(dir.join("ur-hard.safetensors"), &bytes).unwrap();
    let manifest = serde_json::json!({
        "format": "sawah-models",
        "format_version": 1,
        "levels": [
            {"rules": "ur", "level": "hard", "spec": "neural:model=ur-hard.safetensors:depth=1",
             "model": "ur-hard.safetensors", "sha256": format!("{:x}", Sha256::digest(&bytes)),
             "encoder": "race-onehot-v1", "measured": {"elo": 1000}},
            {"rules": "ur", "level": "easy", "spec": "heuristic:noise=0.05"}
        ]
    });
    std::fs::write(dir.join(MANIFEST_FILE), manifest.to_string()).unwrap();
    (dir, bytes)
}

#[test]
fn levels_resolve_to_full_specs_and_build() {
    let (dir, _) = shipped("ok");
    let models = Models::load(&dir).unwrap();
    let rules = race::preset("ur").unwrap();
    models.check(&rules).unwrap();
    let resolve = |text: &str, rules: &str| AgentSpec::parse_with(text, rules, &models).unwrap();
    // A level is the manifest's spec, its model named as the manifest names it.
    let hard = resolve("hard", "ur");
    assert_eq!(hard.to_string(), "neural:depth=1:model=ur-hard.safetensors");
    // Options after the level change it.
    assert_eq!(resolve("hard:seed=3", "ur").seed, 3);
    assert_eq!(resolve("hard:seed=3", "ur").model, hard.model);
    // The JSON form resolves the same way.
    let json = AgentSpec::parse_with(r#"{"agent":"hard","seed":3}"#, "ur", &models).unwrap();
    assert_eq!(json, resolve("hard:seed=3", "ur"));
    // Not listed: the built-in presets.
    assert_eq!(
        resolve("medium", "ur"),
        AgentSpec::parse("medium", "ur").unwrap()
    );
    assert_eq!(
        resolve("hard", "masters"),
        AgentSpec::parse("hard", "masters").unwrap()
    );
    assert_eq!(
        resolve("random", "ur"),
        AgentSpec::parse("random", "ur").unwrap()
    );
    // For agents that read files by path, the model is located in the folder.
    let located = models.located(hard.clone());
    assert_eq!(
        located.model.as_deref(),
        Some(
            dir.join("ur-hard.safetensors")
                .display()
                .to_string()
                .as_str()
        )
    );
    assert!(located.build(&rules).is_ok());
    let mut assets = sawah_agents::MemoryAssets::new();
    models.add_to(&mut assets);
    assert!(hard.build_with(&rules, &assets).is_ok());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tampered_or_missing_model_is_refused() {
    let (dir, mut bytes) = shipped("tampered");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(dir.join("ur-hard.safetensors"), &bytes).unwrap();
    let err = Models::load(&dir).unwrap_err().to_string();
    assert!(err.contains("SHA-256") && err.contains("ur hard"), "{err}");
    std::fs::remove_file(dir.join("ur-hard.safetensors")).unwrap();
    let err = Models::load(&dir).unwrap_err().to_string();
    assert!(err.contains("ur-hard.safetensors"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_model_listed_under_another_rule_set_is_refused() {
    let (dir, _) = shipped("other");
    let text = std::fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap();
    std::fs::write(
        dir.join(MANIFEST_FILE),
        text.replace(
            "\"rules\":\"ur\",\"level\":\"hard\"",
            "\"rules\":\"masters\",\"level\":\"hard\"",
        ),
    )
    .unwrap();
    let models = Models::load(&dir).unwrap();
    let err = models
        .check(&race::preset("masters").unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("the model is for"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_manifests_are_named() {
    let dir = folder("bad");
    for (text, expected) in [
        ("not json", "expected"),
        (
            r#"{"format":"sawah-models","format_version":9,"levels":[]}"#,
            "version 9",
        ),
        (
            r#"{"format":"sawah-models","format_version":1,"levels":[{"rules":"ur","level":"expert","spec":"random"}]}"#,
            "level must be",
        ),
        (
            r#"{"format":"sawah-models","format_version":1,"levels":[{"rules":"ur","level":"easy","spec":"random"},{"rules":"ur","level":"easy","spec":"random"}]}"#,
            "twice",
        ),
        (
            r#"{"format":"sawah-models","format_version":1,"levels":[{"rules":"ur","level":"easy","spec":"random","model":"../x","sha256":"0"}]}"#,
            "inside the models folder",
        ),
    ] {
        std::fs::write(dir.join(MANIFEST_FILE), text).unwrap();
        let err = Models::load(&dir).unwrap_err().to_string();
        assert!(err.contains(expected), "{text}: {err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A models folder is a closed world: a level's spec that names a file of
/// its own (a path outside, weights, a table), a model that is a link, a
/// dial on a model no level lists, and a rule file past the rule files'
/// cap are each refused when the folder loads, before anything parses
/// them, with no content of a file outside quoted.
#[test]
fn a_folder_reaches_nothing_outside_itself() {
    let secret = std::env::temp_dir().join(format!("sawah-secret-{}", std::process::id()));
    std::fs::write(&secret, "root:x:0:0:SECRET-CONTENT\n").unwrap();
    let outside = secret.display().to_string();
    let refused = |name: &str, edit: &dyn Fn(&PathBuf, &mut serde_json::Value)| {
        let (dir, _) = shipped(name);
        let path = dir.join(MANIFEST_FILE);
        let mut manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        edit(&dir, &mut manifest);
        std::fs::write(&path, manifest.to_string()).unwrap();
        let message = Models::load(&dir).unwrap_err().to_string();
        assert!(!message.contains("SECRET-CONTENT"), "{message}");
        let _ = std::fs::remove_dir_all(&dir);
        message
    };
    for (name, spec, said) in [
        (
            "weights",
            format!("heuristic:weights={outside}"),
            "weights file",
        ),
        ("table", format!("perfect:table={outside}"), "table file"),
        (
            "elsewhere",
            format!("neural:model={outside}"),
            "does not list",
        ),
        (
            "up",
            "neural:model=../x.safetensors".to_string(),
            "does not list",
        ),
    ] {
        let message = refused(name, &|_, m| {
            m["levels"][1]["spec"] = serde_json::Value::from(spec.clone());
        });
        assert!(message.contains(said), "{name}: {message}");
    }
    // The model file replaced by a link to a file outside: refused as a link.
    let message = refused("link", &|dir, _| {
        let model = dir.join("ur-hard.safetensors");
        std::fs::remove_file(&model).unwrap();
        std::os::unix::fs::symlink(&secret, &model).unwrap();
    });
    assert!(message.contains("symbolic link"), "{message}");
    // A dial on a model the manifest does not check.
    let message = refused("dial", &|_, m| {
        m["dial"] = serde_json::json!([{"rules": "ur", "model": "other.safetensors",
            "spec": "neural:model=other.safetensors", "points": []}]);
    });
    assert!(message.contains("no level's model"), "{message}");
    // A rule file of 2 MiB: refused by its size before it is parsed.
    let message = refused("big-rules", &|dir, m| {
        let text = format!("# {}\n", "x".repeat(2 << 20));
        std::fs::write(dir.join("big.rules.toml"), &text).unwrap();
        m["rule_files"] = serde_json::json!([{"rules": "big", "file": "big.rules.toml",
            "sha256": format!("{:x}", Sha256::digest(text.as_bytes()))}]);
    });
    assert!(message.contains("at most 1048576"), "{message}");
    let _ = std::fs::remove_file(&secret);
}

/// A small folder of every kind of file a manifest names, as name and
/// bytes, and the manifest that lists them.
fn every_kind() -> (
    std::collections::HashMap<String, Vec<u8>>,
    serde_json::Value,
) {
    let sha = |bytes: &[u8]| format!("{:x}", Sha256::digest(bytes));
    let rules = race::preset("ur").unwrap();
    let model = NeuralNet::with_random_weights(&rules, &[8], 1)
        .unwrap()
        .to_bytes()
        .unwrap();
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let rule_file = std::fs::read(root.join("rules/ur-three-sticks.toml")).unwrap();
    let puzzles: String = std::fs::read_to_string(root.join("models/babylon.puzzles.jsonl"))
        .unwrap()
        .lines()
        .take(3)
        .map(|line| format!("{line}\n"))
        .collect();
    let manifest = serde_json::json!({
        "format": "sawah-models",
        "format_version": 1,
        "levels": [
            {"rules": "ur", "level": "hard", "spec": "neural:model=ur.safetensors:depth=1",
             "model": "ur.safetensors", "sha256": sha(&model), "encoder": "race-onehot-v1",
             "measured": {"elo": 1000}},
            {"rules": "ur", "level": "easy", "spec": "heuristic:noise=0.05"},
            {"rules": "ur-three-sticks", "level": "medium", "spec": "expectiminimax:depth=1"}
        ],
        "anchors": [{"rules": "ur", "agent": "random", "elo": 0}],
        "dial": [{"rules": "ur", "model": "ur.safetensors", "spec": "neural:model=ur.safetensors",
                  "points": [{"noise": 0.0, "elo": 1000}, {"noise": 0.1, "elo": 500}]}],
        "puzzles": [{"rules": "babylon", "file": "babylon.puzzles.jsonl",
                     "sha256": sha(puzzles.as_bytes()), "count": 2}],
        "rule_files": [{"rules": "ur-three-sticks", "file": "ur-three-sticks.toml",
                        "sha256": sha(&rule_file)}]
    });
    let files = [
        ("ur.safetensors", model),
        ("ur-three-sticks.toml", rule_file),
        ("babylon.puzzles.jsonl", puzzles.into_bytes()),
    ]
    .into_iter()
    .map(|(name, bytes)| (name.to_string(), bytes))
    .collect();
    (files, manifest)
}

/// What a hostile or careless manifest writes in a field.
fn any_field_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    prop_oneof![
        Just(serde_json::Value::Null),
        (-2i64..3).prop_map(serde_json::Value::from),
        prop::sample::select(vec![
            "ur.safetensors",
            "../ur.safetensors",
            "/etc/passwd",
            "sub/ur.safetensors",
            "",
            ".",
            "ur-three-sticks.toml",
            "babylon.puzzles.jsonl",
            "neural:model=/etc/passwd",
            "perfect:table=../x.sawah",
            "heuristic:weights=/etc/passwd",
            "neural:model=ur-three-sticks.toml",
            "ur",
            "babylon",
            "hard",
            "race-onehot-v1",
            "\u{1b}[2J",
            "0000",
        ])
        .prop_map(serde_json::Value::from),
        Just(serde_json::json!([])),
        Just(serde_json::json!({"x": 1})),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
        std::env::var("SAWAH_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(1000)
    ))]

    /// A manifest with any of its fields changed loads or is refused with
    /// an error naming it, never a panic, and asks only for plain names
    /// of files in its folder, each at most its kind's cap.
    #[test]
    fn any_manifest_loads_or_is_refused_asking_only_for_plain_names(
        edits in proptest::collection::vec(
            (proptest::prelude::any::<proptest::sample::Index>(), any_field_value()),
            0..4,
        ),
    ) {
        let (files, mut manifest) = every_kind();
        for (at, value) in edits {
            set_some_field(&mut manifest, at, value);
        }
        let mut asked = Vec::new();
        let loaded = Models::from_bytes(manifest.to_string().as_bytes(), "fuzz/manifest.json", |name, limit| {
            asked.push((name.to_string(), limit));
            files.get(name).cloned().ok_or_else(|| format!("{name}: no such file"))
        });
        for (name, limit) in &asked {
            proptest::prop_assert!(
                !name.is_empty() && !name.contains(['/', '\\', ':']) && name != "." && name != "..",
                "asked for {:?}", name
            );
            proptest::prop_assert!(*limit <= 64 << 20, "{} asked with cap {}", name, limit);
        }
        match loaded {
            Ok(models) => {
                let written = serde_json::to_vec(models.manifest()).unwrap();
                let again = Models::from_bytes(&written, "again.json", |name, _| {
                    files.get(name).cloned().ok_or_else(|| name.to_string())
                });
                proptest::prop_assert!(again.is_ok(), "{:?}", again.err());
            }
            Err(error) => {
                let message = error.to_string();
                proptest::prop_assert!(!message.is_empty());
            }
        }
    }
}

/// Sets one field, chosen by `at` among every field of the manifest's
/// objects (the top level's and each entry's), to `value`.
fn set_some_field(
    manifest: &mut serde_json::Value,
    at: proptest::sample::Index,
    value: serde_json::Value,
) {
    fn fields(value: &serde_json::Value, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    let mut here = path.clone();
                    here.push(key.clone());
                    out.push(here.clone());
                    fields(inner, here, out);
                }
            }
            serde_json::Value::Array(list) => {
                for (i, inner) in list.iter().enumerate() {
                    let mut here = path.clone();
                    here.push(i.to_string());
                    fields(inner, here, out);
                }
            }
            _ => {}
        }
    }
    let mut paths = Vec::new();
    fields(manifest, Vec::new(), &mut paths);
    let path = &paths[at.index(paths.len())];
    let pointer: String = path.iter().map(|part| format!("/{part}")).collect();
    if let Some(slot) = manifest.pointer_mut(&pointer) {
        *slot = value;
    }
}

/// The fuzzed manifest's start loads, every file it names asked for once.
#[test]
fn a_manifest_of_every_kind_of_file_loads() {
    let (files, manifest) = every_kind();
    let mut asked = Vec::new();
    let models = Models::from_bytes(manifest.to_string().as_bytes(), "m.json", |name, _| {
        asked.push(name.to_string());
        Ok(files[name].clone())
    })
    .unwrap();
    asked.sort();
    assert_eq!(
        asked,
        [
            "babylon.puzzles.jsonl",
            "ur-three-sticks.toml",
            "ur.safetensors"
        ]
    );
    assert!(models.puzzles("babylon").is_some());
    assert_eq!(models.rule_sets().len(), 1);
}

/// The Senet hard of 2026-12-07, kept as the baseline a stronger hard is
/// measured against (models/ELO.md): still a Senet network of the size it
/// was, and still the shipped hard's weights until a new hard ships.
#[test]
fn the_senet_baseline_is_the_network_it_was_kept_as() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let baseline = root.join("models/baselines/senet-hard-2026-12-07.safetensors");
    let net = NeuralNet::load(&baseline, &sawah_engine::senet::Senet::default()).unwrap();
    assert_eq!(net.widths(), [72, 128, 64, 1]);
    let shipped = std::fs::read(root.join("models/senet.safetensors")).unwrap();
    let kept = std::fs::read(&baseline).unwrap();
    let manifest: sawah_agents::manifest::Manifest =
        serde_json::from_slice(&std::fs::read(root.join("models/manifest.json")).unwrap()).unwrap();
    let hard = manifest
        .levels
        .iter()
        .find(|l| l.rules == "senet" && l.level == "hard")
        .unwrap();
    if hard.model.as_deref() == Some("senet.safetensors") {
        assert_eq!(kept, shipped, "the baseline is the shipped hard's file");
    }
}
