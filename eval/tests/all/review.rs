//! Game review against a solved table: every loss is the table's
//! difference computed here independently, luck averages to zero over the
//! rolls, perfect play loses nothing, and records that do not replay are
//! refused by turn.

use sawah_agents::perfect::PerfectAgent;
use sawah_agents::table::Table;
use sawah_agents::{AgentSpec, RandomAgent};
use sawah_engine::Player;
use sawah_engine::race::{Move, Position, RuleSet};
use sawah_engine::record::Record;
use sawah_engine::senet::Senet;
use sawah_eval::arena::gamelog::{play_recorded, replay};
use sawah_eval::study::review::{Class, Reference, Review, ReviewError, review, svg};
use std::sync::Arc;

/// `tokens` reviewed from the start against perfect play by `table`.
fn by_table(rules: &RuleSet, table: &Arc<Table>, tokens: &[String]) -> Result<Review, ReviewError> {
    let mut agent = PerfectAgent::new(table.clone());
    let mut reference = Reference {
        agent: &mut agent,
        name: "ur-2 table".to_string(),
        exact: true,
        stop: None,
    };
    review(rules, rules.start(), tokens, &mut reference)
}

/// ur-2 solved exactly, as a table file.
fn solved(name: &str) -> (RuleSet, Arc<Table>, String) {
    crate::common::solved_ur2(&format!("review-{name}"))
}

/// The mover's win probability after `mv`, from the table's values alone.
fn after(rules: &RuleSet, table: &Table, position: &Position, mv: Move) -> f64 {
    let outcome = rules.apply(position, mv);
    match rules.winner(&outcome.position) {
        Some(w) => f64::from(u8::from(w == position.turn())),
        None if outcome.extra_roll => table.value(&outcome.position),
        None => 1.0 - table.value(&outcome.position),
    }
}

/// The mover's best win probability after `roll`.
fn best(rules: &RuleSet, table: &Table, position: &Position, roll: u8) -> f64 {
    let moves = rules.legal_moves(position, roll);
    if moves.is_empty() {
        let passed = rules.pass(position);
        return 1.0 - table.value(&passed);
    }
    moves
        .iter()
        .map(|&mv| after(rules, table, position, mv))
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn losses_and_luck_are_the_table_s_and_luck_averages_to_zero() {
    let (rules, table, _) = solved("known");
    for seed in 0..10 {
        let (mut a, mut b) = (RandomAgent::new(seed), RandomAgent::new(seed + 100));
        let played = play_recorded(&rules, &mut a, &mut b, seed);
        let reviewed = by_table(&rules, &table, &played.moves).unwrap();
        assert_eq!(reviewed.turns.len(), played.moves.len());
        assert_eq!(reviewed.winner, played.outcome.winner);
        let mut k = 0;
        let mut luck = [0.0f64; 2];
        replay(&rules, &played.moves, |step| {
            let turn = &reviewed.turns[k];
            k += 1;
            let position = step.position;
            let top = best(&rules, &table, position, step.roll);
            let value = match step.played {
                Some(mv) => after(&rules, &table, position, mv),
                None => top,
            };
            assert!((turn.value_played - value).abs() < 1e-12, "turn {k}");
            assert!(
                (turn.loss_pp - 100.0 * (top - value)).abs() < 1e-9,
                "turn {k}"
            );
            let expected: f64 = rules
                .dice()
                .outcomes()
                .map(|(roll, p)| p * best(&rules, &table, position, roll))
                .sum();
            assert!(
                (turn.luck_pp - 100.0 * (top - expected)).abs() < 1e-9,
                "turn {k}"
            );
            // Over every roll of this position, luck averages to zero.
            let average: f64 = rules
                .dice()
                .outcomes()
                .map(|(roll, p)| p * (best(&rules, &table, position, roll) - expected))
                .sum();
            assert!(average.abs() < 1e-12);
            // The expected best is the table's value (the solution's Bellman equation).
            assert!((expected - table.value(position)).abs() < 1e-5, "turn {k}");
            luck[position.turn().index()] += turn.luck_pp;
            let forced = step.legal.len() <= 1;
            assert_eq!(turn.class == Class::Forced, forced, "turn {k}");
        })
        .unwrap();
        assert!((reviewed.light.luck_pp - luck[0]).abs() < 1e-9);
        assert!((reviewed.dark.luck_pp - luck[1]).abs() < 1e-9);
        let decisions = reviewed
            .turns
            .iter()
            .filter(|t| t.class != Class::Forced)
            .count() as u64;
        assert_eq!(
            reviewed.light.decisions + reviewed.dark.decisions,
            decisions
        );
    }
}

#[test]
fn perfect_play_loses_nothing_and_random_play_does() {
    let (rules, table, path) = solved("perfect");
    let perfect = AgentSpec::parse(&format!("perfect:table={path}"), "ur-2").unwrap();
    let mut light = perfect.build(&rules).unwrap();
    let mut dark = RandomAgent::new(7);
    let played = play_recorded(&rules, light.as_mut(), &mut dark, 3);
    let reviewed = by_table(&rules, &table, &played.moves).unwrap();
    assert!(reviewed.light.decisions > 0);
    assert_eq!(reviewed.light.total_loss_pp, 0.0);
    assert_eq!(reviewed.light.best, reviewed.light.decisions);
    assert!(reviewed.dark.total_loss_pp > 0.0, "{:?}", reviewed.dark);
    let text = reviewed.markdown();
    assert!(text.contains("Reference: ur-2 table"), "{text}");
    assert!(text.contains("| light |") && text.contains("| dark |"));
    let json = serde_json::to_value(&reviewed).unwrap();
    assert_eq!(json["turns"].as_array().unwrap().len(), played.moves.len());
    assert_eq!(json["turns"][0]["player"], "light");
}

#[test]
fn a_record_that_does_not_replay_is_refused_by_move_and_a_start_is_honoured() {
    // Replaying names the turn that does not replay.
    let (rules, table, _) = solved("replay");
    let illegal: Vec<String> = ["2:0-2", "0:pass", "3:0-9"].map(String::from).to_vec();
    let err = by_table(&rules, &table, &illegal).unwrap_err().to_string();
    assert!(err.starts_with("move 3 (\"3:0-9\")"), "{err}");
    // A game from a given start replays from there: the first turn's
    // chance is that position's value.
    let start = {
        let mut p = rules.start();
        for token in ["2:0-2", "0:pass"] {
            let record =
                Record::from_json(&serde_json::json!({"rules":"ur-2","moves":[token]})).unwrap();
            p = sawah_engine::record::replay_from(&rules, p, &record.moves, |_| {}).unwrap();
        }
        p
    };
    let mut agent = PerfectAgent::new(table.clone());
    let mut reference = Reference {
        agent: &mut agent,
        name: "t".into(),
        exact: true,
        stop: None,
    };
    let moves: Vec<String> = ["4:2-6"].map(String::from).to_vec();
    let from_start = review(&rules, start, &moves, &mut reference).unwrap();
    assert!((from_start.turns[0].value_before() - table.value(&start)).abs() < 1e-5);
    assert_eq!(from_start.turns[0].player, Player::Light);
}

#[test]
fn against_a_search_reference_its_own_play_loses_nothing_and_luck_averages_out() {
    let senet = Senet::new();
    let spec = AgentSpec::parse("expectiminimax:depth=0", "senet").unwrap();
    let mut player = spec.build(&senet).unwrap();
    let mut other = RandomAgent::new(4);
    let played = play_recorded(&senet, player.as_mut(), &mut other, 9);
    let mut agent = spec.build(&senet).unwrap();
    let mut reference = Reference {
        agent: agent.as_mut(),
        name: spec.to_string(),
        exact: false,
        stop: None,
    };
    let reviewed = review(&senet, senet.start(), &played.moves, &mut reference).unwrap();
    assert_eq!(reviewed.turns.len(), played.moves.len());
    assert!(reviewed.light.decisions > 5);
    assert!(reviewed.light.total_loss_pp < 1e-9, "{:?}", reviewed.light);
    assert!(reviewed.dark.total_loss_pp > 0.0);
    assert!(!reviewed.exact && reviewed.light.strength.is_none());
    // The chances before each roll are the reference's expected best over
    // the rolls: win probabilities.
    for t in &reviewed.turns {
        assert!((0.0..=1.0).contains(&t.value_before()), "{t:?}");
    }
    // Random play has no values: not a reference.
    let mut random = RandomAgent::new(1);
    let mut reference = Reference {
        agent: &mut random,
        name: "random".into(),
        exact: false,
        stop: None,
    };
    let err = review(&senet, senet.start(), &played.moves, &mut reference).unwrap_err();
    assert!(
        err.to_string().contains("gives no win probabilities"),
        "{err}"
    );
}

#[test]
fn the_picture_has_one_point_per_turn_and_marks_the_mistakes() {
    let (rules, table, _) = solved("svg");
    let (mut a, mut b) = (RandomAgent::new(5), RandomAgent::new(6));
    let played = play_recorded(&rules, &mut a, &mut b, 11);
    let reviewed = by_table(&rules, &table, &played.moves).unwrap();
    let chances = reviewed.chances(Player::Light);
    assert_eq!(chances.len(), reviewed.turns.len());
    // The first turn's chance is the start's value for light.
    assert!((chances[0] - table.value(&rules.start())).abs() < 1e-5);
    let svg = svg(&reviewed, Player::Light).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
        "{svg}"
    );
    let line = svg
        .lines()
        .find(|l| l.contains("<polyline") && l.contains("stroke-width=\"2\""))
        .expect("the chances' line");
    let points = line
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(
        points.split_whitespace().count(),
        reviewed.turns.len(),
        "{line}"
    );
    let marked = reviewed
        .turns
        .iter()
        .filter(|t| matches!(t.class, Class::Mistake | Class::Blunder))
        .count();
    assert_eq!(svg.matches("<circle").count(), marked);
}
