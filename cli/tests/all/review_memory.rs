//! `sawah review` of someone else's 100 MB file stays within a small
//! multiple of it: values are counted before a JSON record is built, and
//! RGN games with absurd tag counts, tag lengths or move counts are
//! refused naming the limit.

use crate::common::fresh_dir;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs `sawah ARGS` to its end; its exit status, stderr, and its peak
/// resident memory in MiB (the high-water mark read from /proc while it
/// runs).
fn peak_of(args: &[&str]) -> (bool, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:"))
        {
            let kib: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    use std::io::Read as _;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.success(), stderr, peak_kib / 1024)
}

#[test]
fn reviewing_a_100_mb_file_stays_under_500_mb_or_is_refused_naming_the_limit() {
    let dir = fresh_dir("review-memory");
    // A record that passes the count: 500,000 moves and a 90 MB field.
    let moves = vec!["\"2:0-2\""; 500_000].join(",");
    let record = format!(
        "{{\"rules\":\"ur\",\"moves\":[{moves}],\"note\":\"{}\"}}",
        "y".repeat(90 << 20)
    );
    let path = dir.join("big.json");
    std::fs::write(&path, &record).unwrap();
    let (ok, stderr, peak) = peak_of(&["review", path.to_str().unwrap(), "--format", "md"]);
    // Read whole, then refused for its length (a review takes at most
    // 5,000 turns).
    assert!(!ok && stderr.contains("turns"), "{stderr}");
    assert!(
        peak < 500,
        "review of {} MB peaked at {peak} MiB",
        record.len() >> 20
    );
    // 12 million moves: refused after counting, before building.
    let moves = vec!["\"2:0-2\""; 12_000_000].join(",");
    std::fs::write(&path, format!("{{\"rules\":\"ur\",\"moves\":[{moves}]}}")).unwrap();
    let (ok, stderr, peak) = peak_of(&["review", path.to_str().unwrap()]);
    assert!(
        !ok && stderr.contains("more than 1000000 JSON values"),
        "{stderr}"
    );
    assert!(peak < 500, "{peak} MiB");
    // RGN: a million tags, then a million moves.
    let rgn = dir.join("big.rgn");
    let tags: String = (0..1_000_000)
        .map(|k| format!("[T{k} \"{k}\"]\n"))
        .collect();
    std::fs::write(&rgn, format!("[Rules \"ur\"]\n{tags}\n1. A@A3\n")).unwrap();
    let (ok, stderr, _) = peak_of(&["review", rgn.to_str().unwrap()]);
    assert!(!ok && stderr.contains("more than 1000 tags"), "{stderr}");
    let moves = "1. A@A3 A@A1\n".repeat(1_000_000);
    std::fs::write(&rgn, format!("[Rules \"ur\"]\n\n{moves}")).unwrap();
    let (ok, stderr, peak) = peak_of(&["review", rgn.to_str().unwrap()]);
    assert!(!ok && stderr.contains("more than 100000 moves"), "{stderr}");
    assert!(peak < 500, "{peak} MiB");
    std::fs::remove_dir_all(&dir).unwrap();
}
