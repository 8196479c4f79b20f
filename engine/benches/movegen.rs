//! Move generation, random playouts and index ranking per rule set.
//!
//! `cargo bench -p sawah-engine --bench movegen`. Throughput is reported
//! per move generated/applied (generation: per position and roll), and
//! per position ranked.
#![allow(missing_docs)] // criterion's macros generate the undocumented entry points

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sawah_engine::playout::positions_of_random_games;
use sawah_engine::playout::random_playout;
use sawah_engine::race::{self, Position, RuleSet};
use sawah_engine::senet::Senet;
use sawah_engine::{DiceSource, Game};
use std::hint::black_box;

/// Positions met in random games, as a realistic workload.
fn sample_positions(rules: &RuleSet, count: usize) -> Vec<Position> {
    positions_of_random_games(rules, 99, count)
}

fn movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for name in race::NAMED_RULE_SETS {
        let rules = race::preset(name).unwrap();
        let positions = sample_positions(&rules, 4096);
        group.throughput(Throughput::Elements((positions.len() * 4) as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut total = 0usize;
                for position in &positions {
                    for roll in 1..=4 {
                        total += rules.legal_moves(black_box(position), roll).len();
                    }
                }
                total
            })
        });
    }
    group.finish();
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_playout");
    for name in race::NAMED_RULE_SETS {
        let rules = race::preset(name).unwrap();
        // Moves per game for throughput, measured on the same seed beforehand.
        let games = 256;
        let mut probe = DiceSource::from_seed(5);
        let moves: u64 = (0..games)
            .map(|_| random_playout(&rules, rules.start(), &mut probe, u64::MAX).moves)
            .sum();
        group.throughput(Throughput::Elements(moves));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut source = DiceSource::from_seed(5);
                for _ in 0..games {
                    black_box(random_playout(&rules, rules.start(), &mut source, u64::MAX));
                }
            })
        });
    }
    group.finish();
}

fn senet_playouts(c: &mut Criterion) {
    let senet = Senet::new();
    let games = 256;
    let mut probe = DiceSource::from_seed(5);
    let moves: u64 = (0..games)
        .map(|_| random_playout(&senet, senet.start(), &mut probe, u64::MAX).moves)
        .sum();
    let mut group = c.benchmark_group("random_playout");
    group.throughput(Throughput::Elements(moves));
    group.bench_function("senet", |b| {
        b.iter(|| {
            let mut source = DiceSource::from_seed(5);
            for _ in 0..games {
                black_box(random_playout(
                    &senet,
                    Game::start(&senet),
                    &mut source,
                    u64::MAX,
                ));
            }
        })
    });
    group.finish();
}

/// Ranking positions in the dense index (the solver's Bellman passes rank
/// every successor of every position).
fn ranking(c: &mut Criterion) {
    let mut group = c.benchmark_group("index");
    for name in race::NAMED_RULE_SETS {
        let rules = race::preset(name).unwrap();
        let index = race::PositionIndex::new(&rules);
        let positions = sample_positions(&rules, 4096);
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                positions
                    .iter()
                    .fold(0u64, |sum, position| sum ^ index.index(black_box(position)))
            })
        });
    }
    group.finish();
}

/// Every successor of a position, ranked, for every roll: one move at a
/// time (generate, apply, rank) against [`race::PositionIndex::successors`],
/// which packs the position once and changes one piece per move (the
/// solver's Bellman passes).
fn successors(c: &mut Criterion) {
    let mut group = c.benchmark_group("successors");
    for name in race::NAMED_RULE_SETS {
        let rules = race::preset(name).unwrap();
        let index = race::PositionIndex::new(&rules);
        let positions = sample_positions(&rules, 4096);
        let rolls: Vec<u8> = rules.dice().outcomes().map(|(roll, _)| roll).collect();
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(format!("{name}/one at a time"), |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for position in &positions {
                    let position = black_box(position);
                    for &roll in &rolls {
                        for &mv in rules.legal_moves(position, roll).iter() {
                            let outcome = rules.apply(position, mv);
                            sum ^= index.index(&outcome.position) + u64::from(outcome.extra_roll);
                        }
                    }
                }
                sum
            })
        });
        group.bench_function(format!("{name}/packed once"), |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for position in &positions {
                    let successors = index.successors(black_box(position));
                    for &roll in &rolls {
                        successors.for_roll(roll, |s, extra| sum ^= s + u64::from(extra));
                    }
                }
                sum
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    movegen,
    playouts,
    senet_playouts,
    ranking,
    successors
);
criterion_main!(benches);
