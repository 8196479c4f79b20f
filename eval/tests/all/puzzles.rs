//! Puzzles mined from a tiny solved rule set (ur-3): every puzzle's answer
//! and margin recomputed from the table by code of its own (not the
//! generator's), the file read back through the reader's checks, ratings
//! measured on a dial, and the protocol's `puzzle`/`solve_puzzle`.

use sawah_agents::manifest::{Dial, DialPoint};
use sawah_agents::puzzle::{PUZZLE_FORMAT, PUZZLE_VERSION, PuzzleHeader, PuzzleSet};
use sawah_agents::table::Table;
use sawah_agents::{AgentSpec, MemoryAssets};
use sawah_engine::Game;
use sawah_engine::race::RuleSet;
use sawah_eval::study::puzzles::{self, Named, PuzzleConfig, RatingConfig};
use std::sync::Arc;

fn named(name: &str, spec: &str) -> Named {
    Named {
        name: name.to_string(),
        spec: AgentSpec::parse(spec, "ur-3").unwrap(),
    }
}

fn config(count: usize, seed: u64) -> PuzzleConfig {
    PuzzleConfig {
        count,
        seed,
        margin_pp: puzzles::DEFAULT_MARGIN_PP,
        players: vec![
            named("searcher", "expectiminimax:depth=1"),
            named("random", "random"),
        ],
        natural: vec![
            named("heuristic", "heuristic"),
            named("noisy", "heuristic:noise=0.2"),
        ],
        max_games: 4_000,
    }
}

/// A dial over the heuristic: noiseless at 500, very noisy at 0.
fn rating() -> RatingConfig {
    RatingConfig {
        dial: Dial {
            rules: "ur-3".into(),
            model: String::new(),
            spec: "heuristic".into(),
            points: vec![
                DialPoint {
                    noise: 0.0,
                    elo: 500.0,
                },
                DialPoint {
                    noise: 0.05,
                    elo: 300.0,
                },
                DialPoint {
                    noise: 0.3,
                    elo: 0.0,
                },
            ],
        },
        hard: named("hard", "expectiminimax:depth=2"),
        hard_elo: 600.0,
        seeds: 32,
    }
}

fn mined(
    rules: &RuleSet,
    table: &Arc<Table>,
    count: usize,
    seed: u64,
) -> Vec<sawah_agents::puzzle::Puzzle> {
    let assets = MemoryAssets::default();
    let mined = puzzles::mine(rules, table, &assets, &config(count, seed), &|_, _| {}).unwrap();
    let mut found = mined.puzzles;
    puzzles::rate(rules, &assets, &rating(), &mut found).unwrap();
    found
}

/// The mover's value after each legal move, straight from the table.
fn by_table(
    rules: &RuleSet,
    table: &Table,
    position: &<RuleSet as Game>::Position,
    roll: u8,
) -> Vec<f64> {
    let mover = position.turn();
    rules
        .legal_moves(position, roll)
        .iter()
        .map(|&mv| {
            let outcome = rules.apply(position, mv);
            match rules.winner(&outcome.position) {
                Some(w) => f64::from(u8::from(w == mover)),
                None if outcome.position.turn() == mover => table.value(&outcome.position),
                None => 1.0 - table.value(&outcome.position),
            }
        })
        .collect()
}

#[test]
fn every_puzzle_s_answer_is_the_table_s_best_move_by_the_margin() {
    let (rules, table, _) = crate::common::solved("ur-3", "puzzles");
    let found = mined(&rules, &table, 40, 5);
    assert!(found.len() >= 20, "only {} puzzles", found.len());
    let mut ids = std::collections::HashSet::new();
    for puzzle in &found {
        assert!(ids.insert(puzzle.id.clone()), "{} twice", puzzle.id);
        let position = rules.position_from_json(&puzzle.position).unwrap();
        let values = by_table(&rules, &table, &position, puzzle.roll);
        let moves = rules.legal_moves(&position, puzzle.roll);
        let best = (0..values.len())
            .max_by(|&a, &b| values[a].total_cmp(&values[b]))
            .unwrap();
        let answer_after = rules.apply(&position, moves[best]).position;
        let answer = moves
            .iter()
            .position(|&m| sawah_engine::Codec::move_json(&rules, m) == puzzle.answer)
            .unwrap();
        assert_eq!(
            rules.apply(&position, moves[answer]).position,
            answer_after,
            "{}",
            puzzle.id
        );
        // Every move reaching another position is at least the margin behind.
        for (k, &mv) in moves.iter().enumerate() {
            if rules.apply(&position, mv).position != answer_after {
                let gap = 100.0 * (values[best] - values[k]);
                assert!(
                    gap >= puzzles::DEFAULT_MARGIN_PP - 1e-6,
                    "{}: {gap}",
                    puzzle.id
                );
            }
            assert!((values[k] - puzzle.moves[k].value).abs() < 1e-6);
        }
        // At least three different positions, and a natural move that is wrong.
        let mut afters = Vec::new();
        for &mv in &moves {
            let after = rules.apply(&position, mv).position;
            if !afters.contains(&after) {
                afters.push(after);
            }
        }
        assert!(afters.len() >= puzzles::MIN_CHOICES, "{}", puzzle.id);
        let natural = moves
            .iter()
            .position(|&m| sawah_engine::Codec::move_json(&rules, m) == puzzle.natural.mv)
            .unwrap();
        assert_ne!(
            rules.apply(&position, moves[natural]).position,
            answer_after
        );
        assert!(!puzzle.natural.by.is_empty() && !puzzle.themes.is_empty());
        assert!((0.0..=600.0).contains(&puzzle.rating), "{}", puzzle.rating);
    }
}

#[test]
fn the_same_seed_mines_the_same_puzzles_and_the_file_reads_back() {
    let (rules, table, _) = crate::common::solved("ur-3", "puzzles-again");
    let a = mined(&rules, &table, 15, 9);
    let b = mined(&rules, &table, 15, 9);
    assert_eq!(a, b);
    let set = PuzzleSet {
        header: PuzzleHeader {
            format: PUZZLE_FORMAT.into(),
            format_version: PUZZLE_VERSION,
            rules: "ur-3".into(),
            margin_pp: puzzles::DEFAULT_MARGIN_PP,
            reference: "ur-3 solved".into(),
            seed: 9,
            players: vec![],
            natural: vec![],
            rating: "test".into(),
            generator: "test".into(),
        },
        puzzles: a,
    };
    let read = PuzzleSet::parse(&rules, set.to_jsonl().as_bytes(), "test").unwrap();
    assert_eq!(read, set);
}

#[test]
fn ratings_hold_up_on_fresh_seeds() {
    let (rules, table, _) = crate::common::solved("ur-3", "puzzles-rated");
    let found = mined(&rules, &table, 40, 21);
    let assets = MemoryAssets::default();
    let dial = rating().dial;
    let (mut sum, mut n) = (0.0, 0);
    for puzzle in found.iter().filter(|p| p.rating_bound.is_none()) {
        let spec = puzzles::dial_spec(&dial, puzzle.rating, "ur-3").unwrap();
        sum += puzzles::solve_rate(&rules, &assets, &spec, puzzle, 5_000..5_100).unwrap();
        n += 1;
    }
    assert!(n >= 5, "only {n} puzzles rated inside the dial");
    let share = sum / f64::from(n);
    assert!(
        (0.35..=0.65).contains(&share),
        "the dial at the ratings found {share}"
    );
}
