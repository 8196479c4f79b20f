//! The game of the day: the published vectors in docs/senet.md, and the
//! plain-JavaScript reference in docs/senet-daily.mjs run under Node.js.

use sawah_engine::senet::daily::{DailyThrows, daily_throws};
use std::path::PathBuf;
use std::process::Command;

fn docs(file: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")).join(file)
}

/// `(date, throws)` for every vector line `YYYY-MM-DD: t t t …` in docs/senet.md.
fn published_vectors() -> Vec<(String, Vec<u8>)> {
    let text = std::fs::read_to_string(docs("senet.md")).unwrap();
    text.lines()
        .filter_map(|line| {
            let (date, throws) = line.split_once(": ")?;
            if date.len() != 10 || !date.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            let throws = throws.split(' ').map(|t| t.parse().unwrap()).collect();
            Some((date.to_string(), throws))
        })
        .collect()
}

#[test]
fn published_vectors_match_the_engine() {
    let vectors = published_vectors();
    assert!(
        vectors.len() >= 5,
        "docs/senet.md should publish vectors for several dates"
    );
    for (date, throws) in vectors {
        assert_eq!(throws.len(), 50, "{date}");
        assert_eq!(daily_throws(&date, 50).unwrap(), throws, "{date}");
    }
}

#[test]
fn daily_throws_have_the_stick_weights() {
    let n = 160_000;
    let mut counts = [0u32; 6];
    for throw in DailyThrows::new("2026-11-30").unwrap().take(n) {
        counts[throw as usize] += 1;
    }
    for (throw, weight) in [(1, 4.0), (2, 6.0), (3, 4.0), (4, 1.0), (5, 1.0)] {
        let expected = n as f64 * weight / 16.0;
        let sd = (expected * (1.0 - weight / 16.0)).sqrt();
        assert!(
            (counts[throw] as f64 - expected).abs() < 5.0 * sd,
            "throw {throw}: {counts:?}"
        );
    }
    assert_eq!(counts[0], 0);
}

#[test]
fn different_dates_differ_and_bad_dates_are_refused() {
    assert_ne!(
        daily_throws("2026-11-30", 30).unwrap(),
        daily_throws("2026-12-01", 30).unwrap()
    );
    assert!(daily_throws("2026-02-30", 5).is_err());
    assert!(daily_throws("30.11.2026", 5).is_err());
}

#[test]
fn javascript_reference_agrees_throw_for_throw() {
    let script = docs("senet-daily.mjs");
    let dates = [
        "2026-11-30",
        "2026-12-01",
        "2027-01-01",
        "2024-02-29",
        "2000-01-01",
        "1999-12-31",
        "2100-03-01",
    ];
    for date in dates {
        let output = match Command::new("node")
            .arg(&script)
            .arg(date)
            .arg("500")
            .output()
        {
            Ok(output) => output,
            Err(e) => {
                eprintln!(
                    "SKIPPED: Node.js is not available ({e}); the JavaScript reference was not checked"
                );
                return;
            }
        };
        assert!(
            output.status.success(),
            "node failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let from_js: Vec<u8> = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(from_js, daily_throws(date, 500).unwrap(), "{date}");
    }
}

#[test]
fn the_date_of_a_clock_reading_is_the_utc_calendar_day() {
    use sawah_engine::senet::daily::{check_date, date_of_unix_seconds};
    for (seconds, date) in [
        (0, "1970-01-01"),
        (86_399, "1970-01-01"),
        (86_400, "1970-01-02"),
        (951_782_400, "2000-02-29"),
        (1_709_164_800, "2024-02-29"),
        (1_796_083_199, "2026-11-30"),
        (1_796_083_200, "2026-12-01"),
        (4_102_444_800, "2100-01-01"),
    ] {
        assert_eq!(date_of_unix_seconds(seconds), date, "{seconds}");
    }
    // Every day over four centuries is a valid, strictly increasing date.
    let mut last = String::new();
    for day in (0..146_097u64).step_by(7) {
        let date = date_of_unix_seconds(day * 86_400 + 43_200);
        assert!(check_date(&date).is_ok(), "{date}");
        assert!(date > last, "{date} after {last}");
        last = date;
    }
}
