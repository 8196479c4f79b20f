//! Move tags and the hit chance, against reference code that looks only at
//! the positions before and after (never at the engine's capture flags).

use sawah_engine::json::{PositionJson, SideJson};
use sawah_engine::race::{self, RuleSet};
use sawah_engine::senet::Senet;
use sawah_engine::{Codec, Describe, Game, Player, Tag};

/// Race reference: a move captures when the other side has more pieces
/// waiting after it.
fn race_captures(rules: &RuleSet, position: &race::Position, mv: race::Move) -> bool {
    let victim = !position.turn();
    let after = rules.apply(position, mv).position;
    after.side(victim).waiting() > position.side(victim).waiting()
}

/// Senet reference: a move attacks when the other side's pieces are not
/// where they were.
fn senet_captures(
    senet: &Senet,
    position: &sawah_engine::senet::Position,
    mv: sawah_engine::senet::Move,
) -> bool {
    let victim = !position.turn();
    let (after, _) = senet.apply(position, mv);
    after.side(victim).square_bits() != position.side(victim).square_bits()
}

fn reference_hit_chance<G: Game>(
    game: &G,
    after: &G::Position,
    captures: impl Fn(&G::Position, G::Move) -> bool,
) -> f64 {
    let mut chance = 0.0;
    for (roll, p) in game.dice().outcomes() {
        if game
            .legal_moves(after, roll)
            .iter()
            .any(|&mv| captures(after, mv))
        {
            chance += p;
        }
    }
    chance
}

fn check_family<G: Describe>(
    game: &G,
    positions: &[G::Position],
    captures: impl Fn(&G::Position, G::Move) -> bool + Copy,
) -> (usize, usize) {
    let (mut captured, mut at_risk) = (0, 0);
    for position in positions {
        for (roll, _) in game.dice().outcomes() {
            for &mv in game.legal_moves(position, roll).iter() {
                let described = game.describe(position, mv);
                let step = game.apply(position, mv);
                assert_eq!(
                    described.tags.contains(&Tag::Captures),
                    captures(position, mv),
                    "{position:?} {mv:?}"
                );
                assert_eq!(described.tags.contains(&Tag::RollsAgain), step.extra_roll);
                assert_eq!(
                    described.tags.contains(&Tag::Wins),
                    game.winner(&step.position) == Some(game.turn(position))
                );
                assert_eq!(described.words.len(), described.tags.len());
                assert!(described.words.iter().all(|w| !w.is_empty()));
                match described.hit_chance {
                    None => assert!(step.extra_roll || game.winner(&step.position).is_some()),
                    Some(chance) => {
                        let expected = reference_hit_chance(game, &step.position, captures);
                        assert!((chance - expected).abs() < 1e-12, "{chance} vs {expected}");
                        at_risk += usize::from(chance > 0.0);
                    }
                }
                captured += usize::from(described.tags.contains(&Tag::Captures));
            }
        }
    }
    (captured, at_risk)
}

#[test]
fn race_tags_and_hit_chances_agree_with_the_reference() {
    for name in ["ur", "sawah", "marks-roll-only", "masters"] {
        let rules = race::preset(name).unwrap();
        let positions = crate::common::positions_from_play(&rules, 30, 3_000);
        let (captured, at_risk) =
            check_family(&rules, &positions, |p, m| race_captures(&rules, p, m));
        assert!(
            captured > 100 && at_risk > 100,
            "{name}: {captured} {at_risk}"
        );
    }
}

#[test]
fn senet_tags_and_hit_chances_agree_with_the_reference() {
    let senet = Senet::new();
    let positions = crate::common::positions_from_play(&senet, 30, 3_000);
    let (captured, at_risk) = check_family(&senet, &positions, |p, m| senet_captures(&senet, p, m));
    assert!(captured > 100 && at_risk > 100, "{captured} {at_risk}");
}

fn race_position(rules: &RuleSet, light: (u8, &[u8]), dark: (u8, &[u8])) -> race::Position {
    let side = |(waiting, squares): (u8, &[u8])| SideJson {
        waiting: Some(waiting),
        scored: rules.pieces() - waiting - squares.len() as u8,
        squares: squares.to_vec(),
    };
    rules
        .position_from_json(&PositionJson {
            rules: rules.name().to_string(),
            turn: Player::Light,
            light: side(light),
            dark: side(dark),
        })
        .unwrap()
}

#[test]
fn race_tags_name_what_the_move_does() {
    let rules = race::preset("ur").unwrap();
    let start = rules.start();
    let tags = |p: &race::Position, from: u8, to: u8| rules.tags(p, race::Move { from, to });
    assert_eq!(tags(&start, 0, 2), vec![Tag::Enters]);
    // Square 4 is a rosette: safe in ur, and another roll.
    assert_eq!(
        tags(&start, 0, 4),
        vec![Tag::Enters, Tag::RollsAgain, Tag::Safe]
    );
    // Light on 5 meets dark on dark's 5 (the same shared cell): a capture.
    let p = race_position(&rules, (6, &[3]), (6, &[5]));
    assert_eq!(tags(&p, 3, 5), vec![Tag::Captures]);
    // Light's piece moved to 5 can be hit by dark's 3 with a 2 (6/16).
    let p = race_position(&rules, (6, &[3]), (6, &[3]));
    let described = rules.describe(&p, race::Move { from: 3, to: 5 });
    assert_eq!(described.tags, Vec::<Tag>::new());
    assert_eq!(described.hit_chance, Some(6.0 / 16.0));
    // Nothing of dark's is on the board: entering lands on dark's own squares.
    let p = race_position(&rules, (6, &[3]), (7, &[]));
    assert_eq!(
        rules.describe(&p, race::Move { from: 3, to: 5 }).hit_chance,
        Some(0.0)
    );
    // The last piece borne off wins.
    let p = race_position(&rules, (0, &[13]), (7, &[]));
    assert_eq!(tags(&p, 13, 15), vec![Tag::BearsOff, Tag::Wins]);
    assert_eq!(
        rules
            .describe(&p, race::Move { from: 13, to: 15 })
            .hit_chance,
        None
    );
    // In marks-roll-only a rosette gives a roll but no safety.
    let loose = race::preset("marks-roll-only").unwrap();
    assert_eq!(
        loose.tags(&loose.start(), race::Move { from: 0, to: 4 }),
        vec![Tag::Enters, Tag::RollsAgain]
    );
}

#[test]
fn senet_tags_name_what_the_move_does() {
    let senet = Senet::new();
    let start = senet.start();
    let mv = |from, to| sawah_engine::senet::Move { from, to };
    // From the start, light's 9 with a 2 lands on 11, next to nothing of its own.
    assert_eq!(senet.tags(&start, mv(9, 11)), Vec::<Tag>::new());
    // With a 1, 9 attacks dark's 10 (its neighbours 9 and 11 are not dark's,
    // so it is not protected) and throws again.
    assert_eq!(
        senet.tags(&start, mv(9, 10)),
        vec![Tag::Captures, Tag::RollsAgain]
    );
    assert_eq!(senet.tags(&start, mv(9, 12)), Vec::<Tag>::new());
    // With a 4, 7 goes to 11 (throws again).
    assert_eq!(senet.tags(&start, mv(7, 11)), vec![Tag::RollsAgain]);
    let position = |light: &[u8]| {
        let side = |squares: &[u8]| SideJson {
            waiting: None,
            scored: 5 - squares.len() as u8,
            squares: squares.to_vec(),
        };
        senet
            .position_from_json(&PositionJson {
                rules: "senet".to_string(),
                turn: Player::Light,
                light: side(light),
                dark: side(&[2, 4, 6, 8, 10]),
            })
            .unwrap()
    };
    let p = position(&[1, 3, 22, 23, 25]);
    assert_eq!(
        senet.tags(&p, mv(23, 24)),
        vec![Tag::RollsAgain, Tag::Protected]
    );
    assert_eq!(
        senet.tags(&p, mv(22, 24)),
        vec![Tag::Protected, Tag::FormsWall]
    );
    assert_eq!(
        senet.tags(&p, mv(25, 26)),
        vec![Tag::RollsAgain, Tag::Beauty, Tag::Safe]
    );
    let p = position(&[1, 3, 5, 7, 26]);
    assert_eq!(
        senet.tags(&p, mv(26, 15)),
        vec![Tag::RollsAgain, Tag::Water]
    );
    assert_eq!(
        senet.tags(&p, mv(26, 31)),
        vec![Tag::RollsAgain, Tag::BearsOff]
    );
    let p = position(&[26]);
    assert_eq!(senet.tags(&p, mv(26, 31)), vec![Tag::BearsOff, Tag::Wins]);
    for (label, tag) in [
        ("attacks", Tag::Captures),
        ("water", Tag::Water),
        ("wall", Tag::FormsWall),
    ] {
        assert!(senet.words(tag).contains(label), "{label}");
    }
}
