//! Hand-made positions for every rule of RULES.md §1, in every rule set where it applies.

use crate::common::pos;
use sawah_engine::Player::{Dark, Light};
use sawah_engine::race::{self, Move, PositionError, RuleSet};

fn named() -> Vec<RuleSet> {
    race::NAMED_RULE_SETS
        .iter()
        .map(|n| race::preset(n).unwrap())
        .collect()
}

fn mv(from: u8, to: u8) -> Move {
    Move { from, to }
}

fn moves(rules: &RuleSet, position: &sawah_engine::race::Position, roll: u8) -> Vec<Move> {
    rules.legal_moves(position, roll).to_vec()
}

#[test]
fn named_rule_sets_have_the_table_parameters() {
    let expect = [
        ("sawah", 7, 16, vec![4, 8, 12, 16], true),
        ("babylon", 5, 16, vec![4, 8, 12, 16], true),
        ("marks-roll-only", 7, 16, vec![4, 8, 12, 16], false),
        ("ur", 7, 14, vec![4, 8, 14], true),
        ("masters", 7, 16, vec![4, 8, 12, 16], true),
        ("masters-5", 5, 16, vec![4, 8, 12, 16], true),
    ];
    for (name, pieces, len, marks, safe) in expect {
        let rules = race::preset(name).unwrap();
        assert_eq!(rules.pieces(), pieces, "{name}");
        assert_eq!(rules.route_len(), len, "{name}");
        for player in [Light, Dark] {
            let marked: Vec<u8> = (1..=len)
                .filter(|&s| rules.is_marked_square(player, s))
                .collect();
            assert_eq!(marked, marks, "{name} {player}");
        }
        assert_eq!(rules.marks_are_safe(), safe, "{name}");
        assert!(rules.marks_give_extra_roll(), "{name}");
        assert_eq!(
            rules.dice().probabilities(),
            &[1.0 / 16.0, 0.25, 0.375, 0.25, 1.0 / 16.0]
        );
    }
}

#[test]
fn shared_squares_per_route() {
    // Egyptian: 4 private, then 12 shared with the same numbers for both.
    for name in ["sawah", "babylon", "marks-roll-only"] {
        let rules = race::preset(name).unwrap();
        for s in 1..=16 {
            let expected = (s >= 5).then_some(s);
            assert_eq!(rules.opponent_square(Light, s), expected, "{name} {s}");
        }
    }
    // Finkel: 5..=12 shared, 13 and 14 private again.
    let ur = race::preset("ur").unwrap();
    for s in 1..=14 {
        let expected = (5..=12).contains(&s).then_some(s);
        assert_eq!(ur.opponent_square(Light, s), expected, "ur {s}");
    }
    // Masters: 5..=11 shared as is; the small block is met head on.
    let masters = race::preset("masters").unwrap();
    for s in 1..=11 {
        assert_eq!(masters.opponent_square(Light, s), (s >= 5).then_some(s));
    }
    for (light, dark) in [(12, 16), (13, 15), (14, 14), (15, 13), (16, 12)] {
        assert_eq!(masters.opponent_square(Light, light), Some(dark));
        assert_eq!(masters.opponent_square(Dark, dark), Some(light));
        assert_eq!(masters.cell(Light, light), masters.cell(Dark, dark));
    }
}

#[test]
fn start_has_every_piece_waiting_and_light_to_move() {
    for rules in named() {
        let start = rules.start();
        assert_eq!(start.turn(), Light);
        for p in [Light, Dark] {
            assert_eq!(start.side(p).waiting(), rules.pieces());
            assert_eq!(start.side(p).on_board(), 0);
            assert_eq!(start.side(p).scored(), 0);
        }
        assert_eq!(rules.start_with(Dark).turn(), Dark);
    }
}

#[test]
fn a_waiting_piece_enters_on_the_square_of_the_roll() {
    for rules in named() {
        for roll in 1..=4 {
            let start = rules.start();
            assert_eq!(
                moves(&rules, &start, roll),
                vec![mv(0, roll)],
                "{}",
                rules.name()
            );
            let after = rules.apply(&start, mv(0, roll)).position;
            assert_eq!(after.side(Light).waiting(), rules.pieces() - 1);
            assert_eq!(after.side(Light).squares().collect::<Vec<_>>(), vec![roll]);
        }
    }
}

#[test]
fn a_piece_moves_exactly_the_roll() {
    for rules in named() {
        let p = rules.pieces();
        let position = pos(&rules, Light, (p - 1, &[5], 0), (p, &[], 0));
        for roll in 1..=4 {
            let legal = moves(&rules, &position, roll);
            assert_eq!(
                legal,
                vec![mv(0, roll), mv(5, 5 + roll)],
                "{} roll {roll}",
                rules.name()
            );
        }
    }
}

#[test]
fn no_piece_lands_on_its_own_side() {
    for rules in named() {
        let p = rules.pieces();
        let position = pos(&rules, Light, (p - 2, &[2, 4], 0), (p, &[], 0));
        // Entering on 2 and moving 2 -> 4 both land on light's own pieces.
        assert_eq!(
            moves(&rules, &position, 2),
            vec![mv(4, 6)],
            "{}",
            rules.name()
        );
    }
}

#[test]
fn landing_on_an_opponent_on_a_shared_cell_captures_it() {
    for rules in named() {
        let p = rules.pieces();
        let position = pos(&rules, Light, (p - 1, &[5], 0), (p - 1, &[6], 0));
        let outcome = rules.apply(&position, mv(5, 6));
        assert!(outcome.captured, "{}", rules.name());
        assert!(!outcome.extra_roll);
        let after = outcome.position;
        assert_eq!(after.side(Dark).waiting(), p);
        assert_eq!(after.side(Dark).on_board(), 0);
        assert_eq!(after.turn(), Dark);
        // Dark recaptures from behind with a 1 once it re-enters: 5 -> 6 again.
        let back = pos(&rules, Dark, (p - 1, &[6], 0), (p - 1, &[5], 0));
        assert!(rules.apply(&back, mv(5, 6)).captured);
    }
}

#[test]
fn private_squares_are_separate_cells() {
    for rules in named() {
        let p = rules.pieces();
        // Both sides on their own square 3: different cells, a valid position.
        let position = pos(&rules, Light, (p - 1, &[2], 0), (p - 1, &[3], 0));
        let outcome = rules.apply(&position, mv(2, 3));
        assert!(!outcome.captured, "{}", rules.name());
        assert_eq!(
            outcome.position.side(Dark).squares().collect::<Vec<_>>(),
            vec![3]
        );
    }
    // On the Ur board the last two squares of the Finkel route are private too.
    let ur = race::preset("ur").unwrap();
    let position = pos(&ur, Light, (6, &[12], 0), (5, &[13, 14], 0));
    let outcome = ur.apply(&position, mv(12, 13));
    assert!(!outcome.captured);
    assert_eq!(outcome.position.side(Dark).on_board(), 2);
}

#[test]
fn the_same_shared_cell_cannot_hold_two_pieces() {
    let sawah = race::preset("sawah").unwrap();
    let err = sawah
        .position(&crate::common::pos(&sawah, Light, (7, &[], 0), (7, &[], 0)).to_setup())
        .map(|_| ());
    assert!(err.is_ok());
    let mut setup = sawah.start().to_setup();
    setup.sides.light = sawah_engine::race::SideSetup {
        waiting: 6,
        scored: 0,
        squares: vec![10],
    };
    setup.sides.dark = sawah_engine::race::SideSetup {
        waiting: 6,
        scored: 0,
        squares: vec![10],
    };
    assert!(matches!(
        sawah.position(&setup),
        Err(PositionError::SharedCell {
            light_square: 10,
            dark_square: 10,
            ..
        })
    ));
    // Masters: light's 12..16 are dark's 16..12.
    let masters = race::preset("masters").unwrap();
    for (light, dark) in [(12, 16), (13, 15), (14, 14), (15, 13), (16, 12)] {
        setup.sides.light.squares = vec![light];
        setup.sides.dark.squares = vec![dark];
        assert!(
            matches!(
                masters.position(&setup),
                Err(PositionError::SharedCell { light_square, dark_square, .. })
                    if light_square == light && dark_square == dark
            ),
            "{light} vs {dark}"
        );
        // The same numbers on both sides are different cells (except 14).
        setup.sides.dark.squares = vec![light];
        assert_eq!(masters.position(&setup).is_ok(), light != 14, "{light}");
    }
}

#[test]
fn safe_marks_protect_and_unsafe_marks_do_not() {
    for rules in named() {
        let p = rules.pieces();
        // Dark stands on the central mark, square 8 for both players in every route.
        let position = pos(&rules, Light, (p - 1, &[6], 0), (p - 1, &[8], 0));
        let legal = moves(&rules, &position, 2);
        if rules.marks_are_safe() {
            assert_eq!(legal, vec![mv(0, 2)], "{}", rules.name());
        } else {
            assert_eq!(legal, vec![mv(0, 2), mv(6, 8)], "{}", rules.name());
            let outcome = rules.apply(&position, mv(6, 8));
            assert!(outcome.captured);
            assert!(
                outcome.extra_roll,
                "a mark still gives a roll when it is not safe"
            );
            assert_eq!(outcome.position.turn(), Light);
        }
    }
}

#[test]
fn masters_small_block_is_met_head_on() {
    for name in ["masters", "masters-5"] {
        let rules = race::preset(name).unwrap();
        let p = rules.pieces();
        // Light 11 -> 13 lands on dark's 15 and captures it.
        let position = pos(&rules, Light, (p - 1, &[11], 0), (p - 1, &[15], 0));
        assert!(rules.apply(&position, mv(11, 13)).captured, "{name}");
        // Light 11 -> 12 would land on dark's 16: dark's home rosette (2,6), safe.
        let position = pos(&rules, Light, (p - 1, &[11], 0), (p - 1, &[16], 0));
        assert!(!moves(&rules, &position, 1).contains(&mv(11, 12)), "{name}");
        // Dark 11 -> 12 would land on light's 16, light's rosette (0,6), safe.
        let position = pos(&rules, Dark, (p - 1, &[16], 0), (p - 1, &[11], 0));
        assert!(!moves(&rules, &position, 1).contains(&mv(11, 12)), "{name}");
        // Light 14 -> 15 captures dark's 13; dark 13 -> 14 captures light's 14.
        let position = pos(&rules, Light, (p - 1, &[14], 0), (p - 1, &[13], 0));
        let outcome = rules.apply(&position, mv(14, 15));
        assert!(outcome.captured, "{name}");
        let position = pos(&rules, Dark, (p - 1, &[14], 0), (p - 1, &[13], 0));
        assert!(rules.apply(&position, mv(13, 14)).captured, "{name}");
        // Light 12 is on dark's rosette: light rolls again, and is safe there.
        let position = pos(&rules, Light, (p - 1, &[10], 0), (p, &[], 0));
        let outcome = rules.apply(&position, mv(10, 12));
        assert!(outcome.extra_roll, "{name}");
        let position = pos(&rules, Dark, (p - 1, &[12], 0), (p - 1, &[14], 0));
        // Dark's 14 -> 16 lands on (2,6), where light's 12 stands safe.
        assert!(!moves(&rules, &position, 2).contains(&mv(14, 16)), "{name}");
    }
}

#[test]
fn ending_on_a_mark_gives_another_roll() {
    for rules in named() {
        let p = rules.pieces();
        let len = rules.route_len();
        let marks: Vec<u8> = (1..=len)
            .filter(|&s| rules.is_marked_square(Light, s))
            .collect();
        for &mark in &marks {
            let from = mark - 2;
            let position = pos(&rules, Light, (p - 1, &[from], 0), (p, &[], 0));
            assert!(moves(&rules, &position, 2).contains(&mv(from, mark)));
            let outcome = rules.apply(&position, mv(from, mark));
            assert!(outcome.extra_roll, "{} mark {mark}", rules.name());
            assert_eq!(outcome.position.turn(), Light);
        }
        // A non-marked square passes the turn.
        let position = pos(&rules, Light, (p - 1, &[5], 0), (p, &[], 0));
        let outcome = rules.apply(&position, mv(5, 6));
        assert!(!outcome.extra_roll);
        assert_eq!(outcome.position.turn(), Dark);
    }
}

#[test]
fn bearing_off_needs_the_exact_roll_and_never_gives_a_roll() {
    for rules in named() {
        let p = rules.pieces();
        let len = rules.route_len();
        let off = len + 1;
        for from in (len - 3)..=len {
            let position = pos(&rules, Light, (0, &[from], p - 1), (p, &[], 0));
            let exact = off - from;
            for roll in 1..=4u8 {
                let legal = moves(&rules, &position, roll);
                let to = from + roll;
                if roll == exact {
                    assert_eq!(legal, vec![mv(from, off)], "{} from {from}", rules.name());
                } else if to > off {
                    assert!(legal.is_empty(), "{} from {from} roll {roll}", rules.name());
                }
            }
        }
        // Bearing off from a square just past a mark: no extra roll.
        let position = pos(&rules, Light, (p - 2, &[len], 1), (p, &[], 0));
        let outcome = rules.apply(&position, mv(len, off));
        assert!(!outcome.extra_roll);
        assert_eq!(outcome.position.turn(), Dark);
        assert_eq!(outcome.position.side(Light).scored(), 2);
    }
}

#[test]
fn a_roll_of_zero_passes() {
    for rules in named() {
        let start = rules.start();
        assert!(moves(&rules, &start, 0).is_empty());
        assert_eq!(rules.pass(&start).turn(), Dark);
        assert_eq!(rules.pass(&start).side(Light), start.side(Light));
    }
}

#[test]
fn no_legal_move_passes() {
    for rules in named() {
        let p = rules.pieces();
        let len = rules.route_len();
        // One piece left on the last square: only a 1 moves it.
        let position = pos(&rules, Light, (0, &[len], p - 1), (p, &[], 0));
        for roll in 2..=4 {
            assert!(
                moves(&rules, &position, roll).is_empty(),
                "{}",
                rules.name()
            );
        }
        // Blocked entry: own pieces on 1..4 and nothing else to move with a roll that hits them.
        let position = pos(&rules, Light, (p - 2, &[3, 4], 0), (p, &[], 0));
        assert_eq!(moves(&rules, &position, 1), vec![mv(0, 1), mv(4, 5)]);
    }
}

#[test]
fn bearing_off_the_last_piece_wins_and_passes_the_turn() {
    for rules in named() {
        let p = rules.pieces();
        let len = rules.route_len();
        let position = pos(&rules, Light, (0, &[len], p - 1), (p - 1, &[5], 0));
        assert_eq!(rules.winner(&position), None);
        let outcome = rules.apply(&position, mv(len, len + 1));
        assert!(!outcome.extra_roll);
        assert_eq!(outcome.position.turn(), Dark);
        assert_eq!(rules.winner(&outcome.position), Some(Light));
        for roll in 0..=4 {
            assert!(
                moves(&rules, &outcome.position, roll).is_empty(),
                "finished games have no moves"
            );
        }
    }
}

#[test]
fn invalid_positions_are_refused_with_the_reason() {
    let rules = race::preset("sawah").unwrap();
    let mut setup = rules.start().to_setup();
    setup.sides.light.squares = vec![17];
    setup.sides.light.waiting = 6;
    assert_eq!(
        rules.position(&setup),
        Err(PositionError::SquareOutOfRange {
            player: Light,
            square: 17,
            len: 16
        })
    );
    setup.sides.light.squares = vec![0];
    assert!(matches!(
        rules.position(&setup),
        Err(PositionError::SquareOutOfRange { square: 0, .. })
    ));
    setup.sides.light.squares = vec![3, 3];
    setup.sides.light.waiting = 5;
    assert_eq!(
        rules.position(&setup),
        Err(PositionError::DuplicateSquare {
            player: Light,
            square: 3
        })
    );
    setup.sides.light.squares = vec![3];
    setup.sides.light.waiting = 7;
    assert!(matches!(
        rules.position(&setup),
        Err(PositionError::PieceCount {
            player: Light,
            total: 8,
            pieces: 7,
            ..
        })
    ));
    setup.sides.light = sawah_engine::race::SideSetup {
        waiting: 0,
        scored: 7,
        squares: vec![],
    };
    setup.sides.dark = sawah_engine::race::SideSetup {
        waiting: 0,
        scored: 7,
        squares: vec![],
    };
    assert_eq!(rules.position(&setup), Err(PositionError::BothWon));
    // One side having won is a valid (finished) position.
    setup.sides.dark.scored = 6;
    setup.sides.dark.waiting = 1;
    assert!(rules.position(&setup).is_ok());
}

/// A position with several faults names every one of them at once, in the
/// order checked (a square out of range makes no count fault of its own).
#[test]
fn every_fault_of_a_position_is_named_at_once() {
    let rules = race::preset("sawah").unwrap();
    let mut setup = rules.start().to_setup();
    setup.sides.light.squares = vec![17, 3, 3];
    setup.sides.dark.squares = vec![5];
    setup.sides.dark.waiting = 7;
    let error = rules.position(&setup).unwrap_err();
    assert_eq!(
        error,
        PositionError::Several(vec![
            PositionError::SquareOutOfRange {
                player: Light,
                square: 17,
                len: 16
            },
            PositionError::DuplicateSquare {
                player: Light,
                square: 3
            },
            PositionError::PieceCount {
                player: Dark,
                waiting: 7,
                on_board: 1,
                scored: 0,
                total: 8,
                pieces: 7
            },
        ])
    );
    let message = error.to_string();
    assert!(
        message.starts_with("3 faults: (1) light has a piece on square 17")
            && message.contains("; (2) light lists square 3 twice; (3) dark has 7 waiting"),
        "{message}"
    );
    // Senet too: a piece on the water and a house shared, both named.
    let senet = sawah_engine::senet::Senet::new();
    let error = senet
        .position(
            Light,
            sawah_engine::ByPlayer::from_fn(|p| {
                if p == Light {
                    &[27u8, 4, 9, 11, 12][..]
                } else {
                    &[4u8, 1, 2, 3, 5][..]
                }
            }),
            sawah_engine::ByPlayer::from_fn(|_| 0),
        )
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("2 faults: (1) light has a piece on house 27")
            && error.contains("(2) light and dark both have a piece on house 4"),
        "{error}"
    );
}
