//! The strength estimate recovers a level: the games of the shipped levels,
//! reviewed without a table (so against the default reference, whose scale
//! the manifest records), put each level's Elo inside the estimate's range.
//! The games are new (another seed than the calibration's).

use crate::common::{fresh_dir, sawah};

#[test]
fn reviewing_a_level_s_games_estimates_the_level_s_elo() {
    let dir = fresh_dir("strength");
    let out = dir.join("t");
    let (code, _, stderr) = sawah(&[
        "tournament",
        "--rules",
        "senet",
        "--agents",
        "easy,hard",
        "--games",
        "16",
        "--seed",
        "12",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let results = out.join("results.jsonl");
    let (code, stdout, stderr) = sawah(&[
        "review",
        results.to_str().unwrap(),
        "--all",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let totals: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../models/manifest.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for entry in totals.as_array().unwrap() {
        let level = entry["agent"].as_str().unwrap();
        let calibrated = manifest["levels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["rules"] == "senet" && l["level"] == level)
            .unwrap()["measured"]["elo"]
            .as_f64()
            .unwrap();
        let strength = &entry["strength"];
        let (low, high) = (
            strength["low"].as_f64().unwrap(),
            strength["high"].as_f64().unwrap(),
        );
        assert!(
            low <= calibrated && calibrated <= high,
            "{level}: calibrated {calibrated}, estimated {strength}"
        );
        assert!(entry["decisions"].as_u64().unwrap() > 400, "{entry}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
