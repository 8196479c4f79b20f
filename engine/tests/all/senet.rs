//! Senet (RULES.md §2): every rule and decision with hand-made positions, a
//! literal reference move generator for differential testing, and properties.

use proptest::prelude::*;
use sawah_engine::json::PositionJson;
use sawah_engine::senet::{Move, OFF, Position, PositionError, Senet};
use sawah_engine::{ByPlayer, Codec, DiceSource, Player, notation};

fn senet() -> Senet {
    Senet::new()
}

/// A position from notation, e.g. `senet light 1,3/3 2,4,6/2`.
fn pos(text: &str) -> Position {
    let json = notation::parse(text).unwrap();
    senet()
        .position_from_json(&json)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn moves(text: &str, throw: u8) -> Vec<(u8, u8)> {
    senet()
        .legal_moves(&pos(text), throw)
        .iter()
        .map(|m| (m.from, m.to))
        .collect()
}

fn after(text: &str, from: u8, to: u8) -> (String, bool) {
    let game = senet();
    let position = pos(text);
    let mv = Move { from, to };
    assert!(
        game.legal_moves(&position, mv.throw()).contains(&mv),
        "{from}->{to} not legal in {text}"
    );
    let (next, extra) = game.apply(&position, mv);
    (notation::format(&game.position_to_json(&next)), extra)
}

#[test]
fn start_position_and_throws() {
    let game = senet();
    assert_eq!(
        notation::format(&game.position_to_json(&game.start())),
        "senet light 1,3,5,7,9/0 2,4,6,8,10/0"
    );
    assert_eq!(
        game.dice().probabilities(),
        &[0.0, 0.25, 0.375, 0.25, 0.0625, 0.0625]
    );
}

#[test]
fn a_lone_opponent_piece_is_attacked_by_swapping() {
    assert_eq!(
        after("senet light 3/4 5/4", 3, 5),
        ("senet dark 5/4 3/4".into(), false)
    );
    // Forward with 1 swaps and throws again.
    assert_eq!(
        after("senet light 3/4 4/4", 3, 4),
        ("senet light 4/4 3/4".into(), true)
    );
}

#[test]
fn pairs_protect_and_do_not_block() {
    // 3 -> 5 and 3 -> 6 land on a protected pair; the piece must go back instead.
    assert_eq!(moves("senet light 3/4 5,6/3", 2), vec![(3, 1)]);
    assert_eq!(moves("senet light 3/4 5,6/3", 3), vec![]);
    // A pair can be passed.
    assert_eq!(moves("senet light 4/4 5,6/3", 3), vec![(4, 7)]);
}

#[test]
fn protection_follows_the_path_across_the_bends() {
    // 10 and 11 are adjacent on the path (the bend between the top and middle rows).
    assert_eq!(moves("senet light 8,1/3 10,11/3", 2), vec![(1, 3)]);
    assert_eq!(moves("senet light 8,1/3 10,11/3", 3), vec![(1, 4)]);
    // 20 and 21 likewise.
    assert_eq!(moves("senet light 18,1/3 20,21/3", 2), vec![(1, 3)]);
    assert_eq!(moves("senet light 18,1/3 20,21/3", 3), vec![(1, 4)]);
    // Without the partner, 10 is a lone piece.
    assert_eq!(moves("senet light 8/4 10,12/3", 2), vec![(8, 10)]);
}

#[test]
fn walls_of_three_or_more_cannot_be_passed_forward() {
    // 1 -> 5 lands on a wall piece (protected); 4 -> 8 crosses the wall;
    // so light must move back: 4 -> 0 is off the path, and nothing else moves.
    assert_eq!(moves("senet light 4,1/3 5,6,7/2", 4), vec![]);
    // Forward with a 2: 1 -> 3 is fine, 4 -> 6 is a wall piece.
    assert_eq!(moves("senet light 4,1/3 5,6,7/2", 2), vec![(1, 3)]);
    // A wall of four is crossed by no throw.
    assert_eq!(moves("senet light 3/4 5,6,7,8/1", 5), vec![]);
    // The same three pieces across the bend 9-10-11 are a wall too.
    assert!(!moves("senet light 8,1/3 9,10,11/2", 4).contains(&(8, 12)));
    // Two in a row are not a wall.
    assert_eq!(moves("senet light 4/4 5,6/3", 4), vec![(4, 8)]);
}

#[test]
fn walls_block_backward_moves_too() {
    // Light's only piece on 24 cannot go forward with a 4 (it must stop on 26),
    // so it must go back 4 to 20, crossing 21-22-23.
    assert_eq!(moves("senet light 24/4 21,22,23,25,26/0", 4), vec![]);
    // With only a pair on 22-23 it may pass backward.
    assert_eq!(
        moves("senet light 24/4 19,22,23,25,26/0", 4),
        vec![(24, 20)]
    );
    // Backward onto a lone piece swaps it forward to the mover's square.
    assert_eq!(
        moves("senet light 24/4 19,22,23,25,26/0", 5),
        vec![(24, 19)]
    );
    assert_eq!(
        after("senet light 24/4 19,22,23,25,26/0", 24, 19),
        ("senet dark 19/4 22,23,24,25,26/0".into(), false)
    );
}

#[test]
fn must_move_forward_if_possible_else_backward_else_pass() {
    // 12 -> 14 forward exists, so 20 -> 18 backward is not offered even though 20 can't go forward.
    assert_eq!(moves("senet light 12,20/3 22,23/3", 2), vec![(12, 14)]);
    // Only backward moves exist: every one is offered.
    assert_eq!(
        moves("senet light 25,24/3 26,28/3", 3),
        vec![(24, 21), (25, 22)]
    );
    // A backward move ends the turn even with a 4 or 5.
    let (_, extra) = after("senet light 24/4 19,22,23,25,26/0", 24, 19);
    assert!(!extra);
    // Nothing at all: pass.
    assert_eq!(moves("senet light 24/4 21,22,23,25,26/0", 4), vec![]);
    assert_eq!(
        senet()
            .pass(&pos("senet light 24/4 21,22,23,25,26/0"))
            .turn(),
        Player::Dark
    );
    // Backward never below house 1.
    assert_eq!(moves("senet light 2/4 3,4,5/2", 4), vec![]);
}

#[test]
fn pieces_on_26_to_30_never_move_backward() {
    assert_eq!(moves("senet light 28/4 1/4", 1), vec![]);
    assert_eq!(moves("senet light 29/4 1/4", 4), vec![]);
    // 26 with a 2 onto dark's safe 28: no forward move, and no backward from 26.
    assert_eq!(moves("senet light 26/4 28/4", 2), vec![]);
}

#[test]
fn every_piece_stops_on_26() {
    // 24 + 3 would pass 26: not a forward move, so the piece must go back.
    assert_eq!(moves("senet light 24/4 1/4", 3), vec![(24, 21)]);
    assert_eq!(moves("senet light 24,1/3 2/4", 3), vec![(1, 4)]);
    assert_eq!(moves("senet light 24/4 1/4", 2), vec![(24, 26)]);
    assert_eq!(moves("senet light 25/4 1/4", 5), vec![(25, 20)]);
    assert_eq!(moves("senet light 22/4 1/4", 4), vec![(22, 26)]);
}

#[test]
fn from_26_the_throw_decides() {
    assert_eq!(moves("senet light 26/4 1/4", 2), vec![(26, 28)]);
    assert_eq!(moves("senet light 26/4 1/4", 3), vec![(26, 29)]);
    assert_eq!(moves("senet light 26/4 1/4", 4), vec![(26, 30)]);
    assert_eq!(moves("senet light 26/4 1/4", 5), vec![(26, OFF)]);
    // Own piece on the target: not legal; opponent there: safe, not legal.
    assert_eq!(moves("senet light 26,29/3 1/4", 3), vec![]);
    assert_eq!(moves("senet light 26/4 30/4", 4), vec![]);
}

#[test]
fn the_water_sends_a_piece_to_15_or_the_first_free_house_below() {
    assert_eq!(moves("senet light 26/4 1/4", 1), vec![(26, 15)]);
    assert_eq!(moves("senet light 26/4 15/4", 1), vec![(26, 14)]);
    assert_eq!(
        moves("senet light 26,15/3 14/4", 1),
        vec![(15, 16), (26, 13)]
    );
    assert_eq!(
        moves("senet light 26,15,13/2 14,12,11/2", 1),
        vec![(13, 14), (15, 16), (26, 10)]
    );
    // 26 -> 27 is a forward move with a 1: another throw.
    let (text, extra) = after("senet light 26/4 15/4", 26, 14);
    assert_eq!(text, "senet light 14/4 15/4");
    assert!(extra);
    // No wall blocks the relocation: dark's wall 16-17-18 lies between 26 and 15.
    assert_eq!(moves("senet light 26/4 16,17,18/2", 1), vec![(26, 15)]);
}

#[test]
fn a_wall_on_28_29_30_blocks_bearing_off_from_26() {
    assert_eq!(moves("senet light 26/4 28,29,30/2", 5), vec![]);
    assert_eq!(moves("senet light 26/4 28,30/3", 5), vec![(26, OFF)]);
}

#[test]
fn only_the_exact_throw_bears_off_from_28_29_30() {
    for (house, exact) in [(28u8, 3u8), (29, 2), (30, 1)] {
        for throw in 1..=5 {
            let expected = if throw == exact {
                vec![(house, OFF)]
            } else {
                vec![]
            };
            assert_eq!(
                moves(&format!("senet light {house}/4 1/4"), throw),
                expected,
                "{house} {throw}"
            );
        }
    }
}

#[test]
fn safe_houses_cannot_be_attacked() {
    // A lone dark piece on 26 cannot be attacked: 24 must go back instead.
    assert_eq!(moves("senet light 24/4 26/4", 2), vec![(24, 22)]);
    for house in [28u8, 29, 30] {
        let text = format!("senet light 26/4 {house}/4");
        assert_eq!(moves(&text, house - 26), vec![], "{house}");
    }
    // The same lone piece below 26 is attacked.
    assert_eq!(moves("senet light 23/4 25/4", 2), vec![(23, 25)]);
}

#[test]
fn extra_throws_only_after_forward_1_4_5() {
    for (throw, extra) in [(1, true), (2, false), (3, false), (4, true), (5, true)] {
        let (_, got) = after("senet light 10/4 1/4", 10, 10 + throw);
        assert_eq!(got, extra, "throw {throw}");
    }
    // Bearing off with 5 from 26 is a forward 5.
    assert!(after("senet light 26,1/3 2/4", 26, OFF).1);
    // From 30 with a 1, too.
    assert!(after("senet light 30,1/3 2/4", 30, OFF).1);
}

#[test]
fn winning_ends_the_game_without_another_throw() {
    let (text, extra) = after("senet light 30/4 1,2/3", 30, OFF);
    assert_eq!(text, "senet dark -/5 1,2/3");
    assert!(!extra);
    let finished = pos(&text);
    assert_eq!(senet().winner(&finished), Some(Player::Light));
    for throw in 1..=5 {
        assert!(senet().legal_moves(&finished, throw).is_empty());
    }
}

#[test]
fn score_for_the_first_player() {
    let game = senet();
    // Light wins with two dark pieces on the board: 100 + 2 * 10.
    assert_eq!(game.score(&pos("senet dark -/5 1,2/3")), Some(120));
    assert_eq!(game.score(&pos("senet dark -/5 1,2,3,4,5/0")), Some(150));
    // Light loses having borne off three: 3 * 5.
    assert_eq!(game.score(&pos("senet light 1,2/3 -/5")), Some(15));
    assert_eq!(game.score(&pos("senet light 1,2,3,4,5/0 -/5")), Some(0));
    assert_eq!(game.score(&game.start()), None);
}

#[test]
fn invalid_positions_are_refused_with_the_reason() {
    let game = senet();
    let check = |text: &str| {
        let json: PositionJson = notation::parse(text).unwrap();
        game.position_from_json(&json).map_err(|e| e.to_string())
    };
    let build = |light: &[u8], dark: &[u8], scored: (u8, u8)| {
        game.position(
            Player::Light,
            ByPlayer { light, dark },
            ByPlayer {
                light: scored.0,
                dark: scored.1,
            },
        )
    };
    assert_eq!(
        build(&[27], &[1, 2, 3, 4, 5], (4, 0)),
        Err(PositionError::PieceOnWater {
            player: Player::Light
        })
    );
    assert_eq!(
        build(&[31], &[1, 2, 3, 4, 5], (4, 0)),
        Err(PositionError::SquareOutOfRange {
            player: Player::Light,
            square: 31
        })
    );
    assert_eq!(
        build(&[0], &[1, 2, 3, 4, 5], (4, 0)),
        Err(PositionError::SquareOutOfRange {
            player: Player::Light,
            square: 0
        })
    );
    assert_eq!(
        build(&[1, 2, 3, 4, 5, 6], &[7], (0, 4)),
        Err(PositionError::TooManyPieces {
            player: Player::Light,
            count: 6
        })
    );
    assert_eq!(
        build(&[3, 3], &[1, 2, 4, 5, 6], (3, 0)),
        Err(PositionError::DuplicateSquare {
            player: Player::Light,
            square: 3
        })
    );
    assert_eq!(
        build(&[1], &[1, 2, 4, 5, 6], (4, 0)),
        Err(PositionError::SameSquare(1))
    );
    assert!(matches!(
        build(&[1], &[2], (3, 4)),
        Err(PositionError::PieceCount {
            player: Player::Light,
            total: 4,
            ..
        })
    ));
    assert_eq!(build(&[], &[], (5, 5)), Err(PositionError::BothWon));
    assert!(
        check("senet light 3/4 7/5")
            .unwrap_err()
            .contains("6 pieces")
    );
    // Race-style sides with a waiting count are refused for Senet.
    assert!(
        check("senet light 0/3/4 0/7/4")
            .unwrap_err()
            .contains("waiting")
    );
}

// --- a literal reference implementation -------------------------------------

/// Who stands on each house 1..=30 (index 0 and 27 unused).
type Board = [Option<Player>; 32];

fn board_of(position: &Position) -> Board {
    let mut board = [None; 32];
    for p in Player::BOTH {
        for s in position.side(p).squares() {
            board[s as usize] = Some(p);
        }
    }
    board
}

fn in_wall(board: &Board, house: u8, owner: Player) -> bool {
    if board[house as usize] != Some(owner) {
        return false;
    }
    let mut lo = house;
    while lo > 1 && board[lo as usize - 1] == Some(owner) {
        lo -= 1;
    }
    let mut hi = house;
    while hi < 30 && board[hi as usize + 1] == Some(owner) {
        hi += 1;
    }
    hi - lo + 1 >= 3
}

fn can_land(board: &Board, me: Player, to: u8) -> bool {
    match board[to as usize] {
        None => true,
        Some(p) if p == me => false,
        Some(_) => {
            let safe = matches!(to, 26 | 28 | 29 | 30);
            let protected = board[to as usize - 1] == Some(!me)
                || (to < 30 && board[to as usize + 1] == Some(!me));
            !safe && !protected
        }
    }
}

fn crosses_wall(board: &Board, me: Player, houses: impl Iterator<Item = u8>) -> bool {
    houses
        .filter(|&h| (1..=30).contains(&h))
        .any(|h| in_wall(board, h, !me))
}

fn reference_moves(position: &Position, throw: u8) -> Vec<Move> {
    let me = position.turn();
    if Player::BOTH.iter().any(|&p| position.side(p).scored() == 5) {
        return vec![];
    }
    let board = board_of(position);
    let mut forward = Vec::new();
    for from in position.side(me).squares() {
        let target = match from {
            1..=25 => {
                let to = from + throw;
                (to <= 26 && can_land(&board, me, to) && !crosses_wall(&board, me, from + 1..=to))
                    .then_some(to)
            }
            26 => match throw {
                1 => {
                    let mut to = 15;
                    while board[to as usize].is_some() {
                        to -= 1;
                    }
                    Some(to)
                }
                5 => (!crosses_wall(&board, me, 27..=30)).then_some(OFF),
                t => {
                    let to = 26 + t;
                    (can_land(&board, me, to) && !crosses_wall(&board, me, 27..=to)).then_some(to)
                }
            },
            _ => (from + throw == OFF).then_some(OFF),
        };
        if let Some(to) = target {
            forward.push(Move { from, to });
        }
    }
    if !forward.is_empty() {
        return forward;
    }
    let mut backward = Vec::new();
    for from in position.side(me).squares().filter(|&s| s < 26) {
        if from > throw {
            let to = from - throw;
            if can_land(&board, me, to) && !crosses_wall(&board, me, to..from) {
                backward.push(Move { from, to });
            }
        }
    }
    backward
}

fn random_position(source: &mut DiceSource) -> Position {
    let game = senet();
    loop {
        let mut houses: Vec<u8> = (1..=30).filter(|&h| h != 27).collect();
        for i in 0..houses.len() {
            let j = i + source.below(houses.len() - i);
            houses.swap(i, j);
        }
        // Bias toward crowded boards (walls, pairs) and the last houses.
        let on_light = 5 - source.below(3) as u8;
        let on_dark = 5 - source.below(3) as u8;
        let light: Vec<u8> = houses[..on_light as usize].to_vec();
        let dark: Vec<u8> = houses[on_light as usize..(on_light + on_dark) as usize].to_vec();
        let turn = if source.below(2) == 0 {
            Player::Light
        } else {
            Player::Dark
        };
        if let Ok(p) = game.position(
            turn,
            ByPlayer {
                light: &light,
                dark: &dark,
            },
            ByPlayer {
                light: 5 - on_light,
                dark: 5 - on_dark,
            },
        ) {
            return p;
        }
    }
}

fn compact_position(source: &mut DiceSource) -> Position {
    // Pieces packed into a window of 12 houses, so walls and pairs are common.
    let game = senet();
    loop {
        let start = 1 + source.below(19) as u8;
        let mut houses: Vec<u8> = (start..start + 12)
            .filter(|&h| h != 27 && h <= 30)
            .collect();
        for i in 0..houses.len() {
            let j = i + source.below(houses.len() - i);
            houses.swap(i, j);
        }
        if houses.len() < 10 {
            continue;
        }
        let turn = if source.below(2) == 0 {
            Player::Light
        } else {
            Player::Dark
        };
        if let Ok(p) = game.position(
            turn,
            ByPlayer {
                light: &houses[..5],
                dark: &houses[5..10],
            },
            ByPlayer { light: 0, dark: 0 },
        ) {
            return p;
        }
    }
}

#[test]
fn fast_generator_matches_the_reference() {
    let game = senet();
    let mut source = DiceSource::from_seed(2026);
    let mut positions: Vec<Position> = (0..20_000).map(|_| random_position(&mut source)).collect();
    positions.extend((0..20_000).map(|_| compact_position(&mut source)));
    let mut position = game.start();
    for _ in 0..20_000 {
        if game.winner(&position).is_some() {
            position = game.start();
        }
        positions.push(position);
        let moves = game.legal_moves(&position, source.roll(game.dice()));
        position = match moves.len() {
            0 => game.pass(&position),
            n => game.apply(&position, moves[source.below(n)]).0,
        };
    }
    for position in positions {
        for throw in 1..=5 {
            let fast: Vec<Move> = game.legal_moves(&position, throw).to_vec();
            let mut reference = reference_moves(&position, throw);
            reference.sort();
            let mut sorted = fast.clone();
            sorted.sort();
            assert_eq!(
                sorted,
                reference,
                "{} throw {throw}",
                notation::format(&game.position_to_json(&position))
            );
        }
    }
}

/// `move_of_piece` names exactly the move `legal_moves` lists for a piece,
/// and nothing for a piece with none (or a house without a piece).
#[test]
fn the_move_of_one_piece_is_the_one_listed_for_it() {
    let game = senet();
    let mut source = DiceSource::from_seed(70);
    let mut positions: Vec<Position> = (0..5_000).map(|_| random_position(&mut source)).collect();
    positions.extend((0..5_000).map(|_| compact_position(&mut source)));
    let (mut backward, mut forward) = (0, 0);
    for position in positions {
        for throw in 0..=6 {
            let listed = game.legal_moves(&position, throw);
            for from in 0..=31 {
                let expected = listed.iter().copied().find(|mv| mv.from == from);
                let found = game.move_of_piece(&position, from, throw);
                assert_eq!(found, expected, "{position:?} throw {throw} from {from}");
                match found {
                    Some(mv) if mv.is_backward() => backward += 1,
                    Some(_) => forward += 1,
                    None => {}
                }
            }
        }
    }
    assert!(
        backward > 100 && forward > 10_000,
        "{backward} backward, {forward} forward"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn moves_keep_five_pieces_and_never_rest_on_the_water(seed in any::<u64>()) {
        let game = senet();
        let position = random_position(&mut DiceSource::from_seed(seed));
        for throw in 1..=5 {
            for &mv in game.legal_moves(&position, throw).iter() {
                let (next, _) = game.apply(&position, mv);
                for p in Player::BOTH {
                    prop_assert_eq!(next.side(p).on_board() + next.side(p).scored(), 5);
                    prop_assert!(!next.side(p).has(27));
                }
                let json = game.position_to_json(&next);
                prop_assert_eq!(game.position_from_json(&json), Ok(next));
                // JSON and notation round trip.
                prop_assert_eq!(notation::parse(&notation::format(&json)).unwrap(), json);
            }
        }
    }

    #[test]
    fn random_games_end(seed in any::<u64>()) {
        let game = senet();
        let stats = sawah_engine::playout::random_playout(&game, game.start(), &mut DiceSource::from_seed(seed), 1_000_000);
        prop_assert!(stats.winner.is_some(), "no winner after {} throws", stats.plies);
    }
}
