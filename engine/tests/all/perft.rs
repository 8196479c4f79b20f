//! Regression counts: distinct positions reachable after k rolls, per rule
//! set, stored as data in `tests/data/perft.txt`. Run with `SAWAH_BLESS=1` to
//! rewrite the file after a deliberate rules change (and say why in the commit).

use sawah_engine::perft::distinct_positions;
use sawah_engine::race;
use sawah_engine::senet::Senet;
use std::fmt::Write;

const DEPTH: usize = 8;
const SENET_DEPTH: usize = 6;
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.txt");

fn computed() -> String {
    let mut out = String::from("# rules rolls distinct-positions (see tests/perft.rs)\n");
    for name in race::all_preset_names() {
        let rules = race::preset(name).unwrap();
        for (k, count) in distinct_positions(&rules, rules.start(), DEPTH)
            .iter()
            .enumerate()
        {
            writeln!(out, "{name} {k} {count}").unwrap();
        }
    }
    let senet = Senet::new();
    for (k, count) in distinct_positions(&senet, senet.start(), SENET_DEPTH)
        .iter()
        .enumerate()
    {
        writeln!(out, "senet {k} {count}").unwrap();
    }
    out
}

#[test]
fn perft_counts_match_the_stored_data() {
    let now = computed();
    if std::env::var_os("SAWAH_BLESS").is_some() {
        std::fs::write(DATA, &now).unwrap();
    }
    let stored = std::fs::read_to_string(DATA)
        .expect("tests/data/perft.txt is missing; run with SAWAH_BLESS=1");
    assert_eq!(now, stored);
}
