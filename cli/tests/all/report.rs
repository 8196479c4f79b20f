//! `sawah rules NAME --report` on a tiny rule set: with its solved table
//! the first player's value is the table's (exact) and perfect play beats
//! random play; without one the figures come from games; JSON and text
//! agree; any rule file works.

use crate::common::{fresh_dir, sawah};
use serde_json::Value;

#[test]
fn a_report_from_the_table_and_from_games() {
    let dir = fresh_dir("report");
    let table = dir.join("ur-2.sawah");
    let table = table.to_str().unwrap();
    let (code, solved, err) = sawah(&["solve", "--rules", "ur-2", "--out", table]);
    assert_eq!(code, 0, "{err}");
    let start: f64 = solved
        .split("at the start: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    let (code, out, err) = sawah(&[
        "rules", "ur-2", "--report", "--table", table, "--games", "200", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["first_player"]["exact"], true);
    // The table holds f32 values: equal to about seven digits.
    assert!((report["first_player"]["value"].as_f64().unwrap() - start).abs() < 1e-6);
    let perfect_vs_random = &report["skill"][0];
    assert!(
        perfect_vs_random["first"]
            .as_str()
            .unwrap()
            .starts_with("perfect")
    );
    assert!(
        perfect_vs_random["score"].as_f64().unwrap() > 0.6,
        "{perfect_vs_random}"
    );
    assert_eq!(
        report["length"]["by"].as_str().unwrap().split(':').next(),
        Some("perfect")
    );
    let rolls = report["first_rolls"]["rolls"].as_array().unwrap();
    assert_eq!(rolls.len(), 5, "every roll of the four sticks");
    // The rolls' values weighted by their chances are the start value.
    let weighted: f64 = rolls
        .iter()
        .map(|r| r["probability"].as_f64().unwrap() * r["value"].as_f64().unwrap())
        .sum();
    assert!(
        (weighted - start).abs() < 1e-6,
        "{weighted} against {start}"
    );
    // Without the table: from games of hard against itself.
    let (code, text, err) = sawah(&["rules", "ur-2", "--report", "--games", "100"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("games of "), "{text}");
    assert!(text.contains("Real choices:"), "{text}");
    assert!(text.contains("| roll | chance |"), "{text}");
    // A rule file is a rule set like any other.
    let rule_file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules/ur-three-sticks.toml");
    let (code, _, err) = sawah(&[
        "rules",
        rule_file.to_str().unwrap(),
        "--report",
        "--games",
        "20",
    ]);
    assert_eq!(code, 0, "{err}");
    // Senet has no whole table.
    let (code, _, err) = sawah(&["rules", "senet", "--report", "--table", table]);
    assert_ne!(code, 0);
    assert!(err.contains("Senet is not solved whole"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
