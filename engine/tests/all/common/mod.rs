//! Shared test helpers: a deliberately simple reference move generator and
//! random valid positions.
#![allow(dead_code)]

use sawah_engine::race::{Cell, Position, RuleSet, Setup, SideSetup};
use sawah_engine::{ByPlayer, DiceSource, Game, Player};
use std::collections::HashMap;

/// A move as the reference sees it: start, end, the position after it (as a
/// setup with sorted squares), and whether the mover rolls again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefMove {
    pub from: u8,
    pub to: u8,
    pub after: Setup,
    pub extra_roll: bool,
}

fn sorted(mut setup: Setup) -> Setup {
    for p in Player::BOTH {
        setup.sides[p].squares.sort_unstable();
    }
    setup
}

/// RULES.md §1.1 read literally, cell by cell, with no precomputed tables.
pub fn reference_moves(rules: &RuleSet, setup: &Setup, roll: u8) -> Vec<RefMove> {
    let spec = rules.spec();
    let routes = ByPlayer {
        light: spec.light_route.clone(),
        dark: spec
            .dark_route
            .clone()
            .expect("resolved rule sets carry both routes"),
    };
    let len = routes.light.len() as u8;
    let pieces = spec.pieces;
    if roll == 0
        || Player::BOTH
            .iter()
            .any(|&p| setup.sides[p].scored == pieces)
    {
        return Vec::new();
    }
    let me = setup.turn;
    let them = !me;
    let mut occupant: HashMap<Cell, Player> = HashMap::new();
    for p in Player::BOTH {
        for &s in &setup.sides[p].squares {
            occupant.insert(routes[p][s as usize - 1], p);
        }
    }
    let mut starts: Vec<u8> = setup.sides[me].squares.clone();
    if setup.sides[me].waiting > 0 {
        starts.push(0);
    }
    starts.sort_unstable();
    let mut moves = Vec::new();
    for from in starts {
        let to = from + roll;
        if to > len + 1 {
            continue; // bearing off needs the exact roll
        }
        let mut after = setup.clone();
        let mut extra_roll = false;
        {
            let mine: &mut SideSetup = &mut after.sides[me];
            if from == 0 {
                mine.waiting -= 1;
            } else {
                mine.squares.retain(|&s| s != from);
            }
        }
        if to == len + 1 {
            after.sides[me].scored += 1;
        } else {
            let cell = routes[me][to as usize - 1];
            let marked = spec.marks.cells.contains(&cell);
            let mut captured = false;
            match occupant.get(&cell) {
                Some(&p) if p == me => continue,
                Some(_) => {
                    if marked && spec.marks.safe {
                        continue;
                    }
                    let their_square =
                        routes[them].iter().position(|&c| c == cell).unwrap() as u8 + 1;
                    let theirs = &mut after.sides[them];
                    theirs.squares.retain(|&s| s != their_square);
                    theirs.waiting += 1;
                    captured = true;
                }
                None => {}
            }
            after.sides[me].squares.push(to);
            extra_roll = (marked && spec.marks.extra_roll) || (captured && spec.capture_extra_roll);
        }
        after.turn = if extra_roll { me } else { them };
        moves.push(RefMove {
            from,
            to,
            after: sorted(after),
            extra_roll,
        });
    }
    moves.sort_by_key(|m| m.to);
    moves
}

/// A uniformly chosen subset of `k` of the numbers `1..=len`.
fn random_squares(source: &mut DiceSource, len: u8, k: u8) -> Vec<u8> {
    let mut all: Vec<u8> = (1..=len).collect();
    for i in 0..k as usize {
        let j = i + source.below(all.len() - i);
        all.swap(i, j);
    }
    all.truncate(k as usize);
    all.sort_unstable();
    all
}

/// A random valid position (not necessarily reachable), by rejection.
pub fn random_position(rules: &RuleSet, source: &mut DiceSource) -> Position {
    let pieces = rules.pieces();
    let len = rules.route_len();
    loop {
        let turn = if source.below(2) == 0 {
            Player::Light
        } else {
            Player::Dark
        };
        let sides = ByPlayer::from_fn(|_| {
            let on_board = source.below(pieces.min(len) as usize + 1) as u8;
            let scored = source.below((pieces - on_board) as usize + 1) as u8;
            SideSetup {
                waiting: pieces - on_board - scored,
                scored,
                squares: random_squares(source, len, on_board),
            }
        });
        if let Ok(position) = rules.position(&Setup { turn, sides }) {
            return position;
        }
    }
}

/// Positions met in random games: reachable, and biased toward the middle game.
pub fn positions_from_play<G: Game>(game: &G, seed: u64, count: usize) -> Vec<G::Position> {
    let mut source = DiceSource::from_seed(seed);
    let mut found = Vec::with_capacity(count);
    let mut position = game.start();
    while found.len() < count {
        if game.winner(&position).is_some() {
            position = game.start();
        }
        found.push(position);
        let roll = source.roll(game.dice());
        let moves = game.legal_moves(&position, roll);
        position = if moves.is_empty() {
            game.pass(&position)
        } else {
            game.apply(&position, moves[source.below(moves.len())])
                .position
        };
    }
    found
}

/// Builds a position from notation-like pieces; panics on invalid input (tests only).
pub fn pos(
    rules: &RuleSet,
    turn: Player,
    light: (u8, &[u8], u8),
    dark: (u8, &[u8], u8),
) -> Position {
    let side = |(waiting, squares, scored): (u8, &[u8], u8)| SideSetup {
        waiting,
        scored,
        squares: squares.to_vec(),
    };
    rules
        .position(&Setup {
            turn,
            sides: ByPlayer {
                light: side(light),
                dark: side(dark),
            },
        })
        .unwrap_or_else(|e| panic!("test position is invalid: {e}"))
}

/// Cases of a parser's property test: `SAWAH_FUZZ_CASES` when set (a long
/// run by hand, docs/testing.md), else `default` (what CI runs).
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("SAWAH_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}
