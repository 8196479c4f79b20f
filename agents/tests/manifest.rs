//! The models manifest: levels resolve to specs with full model paths, and
//! a missing file, a changed byte, a model for another rule set or a bad
//! manifest are refused with a message.

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
    let hard = models.expand("hard", "ur");
    assert_eq!(
        hard,
        format!(
            "neural:model={}:depth=1",
            dir.join("ur-hard.safetensors").display()
        )
    );
    assert!(
        models
            .expand("hard:seed=3", "ur")
            .ends_with(":depth=1:seed=3")
    );
    assert_eq!(
        models.expand("medium", "ur"),
        "medium",
        "not listed: the built-in preset"
    );
    assert_eq!(models.expand("hard", "masters"), "hard");
    assert_eq!(models.expand("random", "ur"), "random");
    let spec = sawah_agents::AgentSpec::parse(&hard, "ur").unwrap();
    assert!(spec.build(&rules).is_ok());
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
