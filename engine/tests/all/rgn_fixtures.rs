//! RGN games from a RoyalUr-style source (tests/fixtures/rgn/: games of
//! RoyalUr's own Python engine in RoyalUr's RGN, made by
//! python/tests/test_rgn.py) read into sawah game records and written
//! back: the same text, the same tags.

use sawah_engine::Registry;
use sawah_engine::rgn;
use std::path::Path;

#[test]
fn royalur_games_round_trip_through_sawah_records() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/rgn");
    let registry = Registry::new();
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let record = rgn::to_record(&registry, &text).unwrap();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        assert_eq!(record["rules"], name.as_str(), "{}", path.display());
        let moves = record["moves"].as_array().unwrap();
        assert!(moves.len() > 50, "{name}: a whole game");
        assert_eq!(
            record["tags"][1],
            serde_json::json!(["Source", "royalur 0.0.6, random moves"])
        );
        let written = rgn::from_record(&registry, &record).unwrap() + "\n";
        assert_eq!(written, text, "{name}");
        seen.push(name);
    }
    seen.sort();
    assert_eq!(seen, ["aseb", "blitz", "masters-3dice", "ur"]);
}
