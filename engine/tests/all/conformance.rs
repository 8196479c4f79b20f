//! One conformance suite that every game must pass, run over every rule set
//! the registry knows (found by iterating it, not by a list kept here) and
//! over the rule files in `rules/`:
//!
//! * JSON and notation round trips of every position met;
//! * no legal move ⇔ the turn passes: a pass keeps every piece and hands
//!   the turn over, and only a roll without moves passes;
//! * every successor is a valid position (it passes the same validation as
//!   outside input), keeps every piece, and has the mover to move again
//!   exactly on an extra roll;
//! * a game is won exactly when a side has borne off every piece;
//! * colour symmetry: swapping the two sides' pieces and the turn gives the
//!   same legal moves;
//! * random games end.

use sawah_engine::json::{PositionJson, SideJson};
use sawah_engine::registry::Registry;
use sawah_engine::{Codec, DiceSource, Player, notation, with_game};

/// Random games played per rule set.
const GAMES: u64 = 40;
/// Rolls after which a random game counts as endless (the longest of
/// 600,000 random Senet games took 351 throws: docs/benchmarks-log.md).
const MAX_ROLLS: usize = sawah_engine::MAX_ROLLS as usize;

fn pieces_of(side: &SideJson) -> usize {
    usize::from(side.waiting.unwrap_or(0)) + usize::from(side.scored) + side.squares.len()
}

fn flipped(json: &PositionJson) -> PositionJson {
    PositionJson {
        rules: json.rules.clone(),
        turn: !json.turn,
        light: json.dark.clone(),
        dark: json.light.clone(),
    }
}

/// Checks one position of `game` against every rule above.
fn check_position<G: Codec>(game: &G, position: &G::Position, pieces: usize) {
    let json = game.position_to_json(position);
    let shown = notation::format(&json);
    assert_eq!(
        game.position_from_json(&json).as_ref(),
        Ok(position),
        "{shown}: JSON round trip"
    );
    assert_eq!(
        notation::parse(&shown).as_ref(),
        Ok(&json),
        "{shown}: notation round trip"
    );
    for player in [Player::Light, Player::Dark] {
        assert_eq!(
            pieces_of(json.side(player)),
            pieces,
            "{shown}: {player:?}'s pieces"
        );
    }
    let won = [Player::Light, Player::Dark]
        .into_iter()
        .find(|&p| usize::from(json.side(p).scored) == pieces);
    assert_eq!(game.winner(position), won, "{shown}: the winner");
    let mirror = game
        .position_from_json(&flipped(&json))
        .unwrap_or_else(|e| panic!("{shown}: the colour-swapped position is invalid: {e}"));
    let mover = game.turn(position);
    for (roll, probability) in game.dice().outcomes() {
        if probability == 0.0 {
            continue;
        }
        let moves = game.legal_moves(position, roll);
        let as_json: Vec<_> = moves.iter().map(|&mv| game.move_to_json(mv)).collect();
        let mirrored: Vec<_> = game
            .legal_moves(&mirror, roll)
            .iter()
            .map(|&mv| game.move_to_json(mv))
            .collect();
        assert_eq!(as_json, mirrored, "{shown}, roll {roll}: colour symmetry");
        if won.is_some() {
            assert!(moves.is_empty(), "{shown}: moves after the end");
        }
        if moves.is_empty() {
            let passed = game.position_to_json(&game.pass(position));
            assert_eq!(
                passed.turn, !mover,
                "{shown}, roll {roll}: a pass hands the turn over"
            );
            assert_eq!(
                (&passed.light, &passed.dark),
                (&json.light, &json.dark),
                "{shown}: a pass moves nothing"
            );
            continue;
        }
        for &mv in moves.iter() {
            let step = game.apply(position, mv);
            let after = game.position_to_json(&step.position);
            let after_shown = notation::format(&after);
            assert_eq!(
                game.position_from_json(&after).as_ref(),
                Ok(&step.position),
                "{shown}, roll {roll} → {after_shown}: the successor is valid"
            );
            for player in [Player::Light, Player::Dark] {
                assert_eq!(
                    pieces_of(after.side(player)),
                    pieces,
                    "{after_shown}: pieces kept"
                );
            }
            let expected = if step.extra_roll { mover } else { !mover };
            assert_eq!(
                game.turn(&step.position),
                expected,
                "{shown} → {after_shown}: who moves next"
            );
        }
    }
}

/// Plays seeded random games of `game`, checking every position met.
fn conformance<G: Codec>(game: &G) {
    let start = game.position_to_json(&game.start());
    let pieces = pieces_of(&start.light);
    for seed in 0..GAMES {
        let mut dice = DiceSource::from_seed(seed);
        let mut position = game.start();
        let mut rolls = 0;
        while game.winner(&position).is_none() {
            check_position(game, &position, pieces);
            rolls += 1;
            assert!(
                rolls < MAX_ROLLS,
                "{}: game {seed} did not end in {MAX_ROLLS} rolls",
                game.name()
            );
            let roll = dice.roll(game.dice());
            let moves = game.legal_moves(&position, roll);
            position = if moves.is_empty() {
                game.pass(&position)
            } else {
                game.apply(&position, moves[dice.below(moves.len())])
                    .position
            };
        }
        check_position(game, &position, pieces);
    }
}

#[test]
fn every_rule_set_of_the_registry_conforms() {
    let registry = Registry::new();
    assert!(
        registry.games().len() >= 7,
        "the registry knows the seven rule sets"
    );
    for game in registry.games() {
        with_game!(game, g => conformance(g));
    }
}

#[test]
fn every_rule_file_in_rules_conforms() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    let mut registry = Registry::new();
    let mut loaded = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let game = registry
            .load_file(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        with_game!(&game, g => conformance(g));
        loaded += 1;
    }
    assert!(loaded >= 2, "the rule files in rules/");
}
