//! Game review against a solved table: every loss is the table's
//! difference computed here independently, luck averages to zero over the
//! rolls, perfect play loses nothing, and records that do not replay are
//! refused by turn.

use sawah_agents::table::{Table, TableInfo, ValueType, write_table};
use sawah_agents::{AgentSpec, RandomAgent};
use sawah_engine::race::{self, Move, Position, RuleSet};
use sawah_eval::gamelog::{play_recorded, replay};
use sawah_eval::review::{Class, read_record, review};

/// ur-2 solved exactly, as a table file.
fn solved(name: &str) -> (RuleSet, Table, String) {
    let rules = race::preset("ur-2").unwrap();
    let solution = sawah_solver::solve(&rules, Default::default(), |_| {}).unwrap();
    let info = TableInfo {
        states: solution.values.len() as u64,
        residual: solution.residual,
        tolerance: 1e-10,
        value_type: ValueType::F32,
    };
    let dir = std::env::temp_dir().join(format!("sawah-review-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ur-2.table");
    write_table(&path, &rules, &solution.values, &info).unwrap();
    let table = Table::open(&path, &rules).unwrap();
    (rules, table, path.display().to_string())
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
        let reviewed = review(&rules, &table, "ur-2 table", &played.moves).unwrap();
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
    let reviewed = review(&rules, &table, "ur-2 table", &played.moves).unwrap();
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
fn records_in_turns_or_tokens_read_alike_and_bad_ones_are_named_by_turn() {
    let turns = serde_json::json!({"rules": "ur-2", "turns": [
        {"roll": 2, "move": {"from": 0, "to": 2}},
        {"roll": 0, "move": "pass"},
        {"roll": 4, "move": {"from": 2, "to": 6}},
    ]});
    let (rules, tokens) = read_record(&turns).unwrap();
    assert_eq!(rules, "ur-2");
    assert_eq!(tokens, ["2:0-2", "0:pass", "4:2-6"]);
    let moves =
        serde_json::json!({"rules": "ur-2", "light": "random", "moves": ["2:0-2", "0:pass"]});
    assert_eq!(read_record(&moves).unwrap().1, ["2:0-2", "0:pass"]);
    let bad = serde_json::json!({"rules": "ur-2", "turns": [{"roll": 2, "move": {"from": 0, "to": 2}}, {"roll": "x", "move": "pass"}]});
    assert_eq!(
        read_record(&bad).unwrap_err().to_string(),
        "turn 2: \"roll\" must be a whole number"
    );
    assert!(read_record(&serde_json::json!([1])).is_err());
    // Replaying names the turn that does not replay.
    let (rules, table, _) = solved("replay");
    let illegal: Vec<String> = ["2:0-2", "0:pass", "3:0-9"].map(String::from).to_vec();
    let err = review(&rules, &table, "t", &illegal)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("move 3 (\"3:0-9\")"), "{err}");
}

#[test]
fn the_picture_has_one_point_per_turn_and_marks_the_mistakes() {
    let (rules, table, _) = solved("svg");
    let (mut a, mut b) = (RandomAgent::new(5), RandomAgent::new(6));
    let played = play_recorded(&rules, &mut a, &mut b, 11);
    let reviewed = review(&rules, &table, "ur-2 table", &played.moves).unwrap();
    let chances = reviewed.chances(sawah_engine::Player::Light);
    assert_eq!(chances.len(), reviewed.turns.len());
    // The first turn's chance is the start's value for light.
    assert!((chances[0] - table.value(&rules.start())).abs() < 1e-5);
    let svg = reviewed.svg(sawah_engine::Player::Light).unwrap();
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
