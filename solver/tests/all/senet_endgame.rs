//! Senet endgame tables end to end: solved, written, read back, played
//! from (the `endgame=FILE` option) and used to review games.

use sawah_agents::endgame::{EndgameTable, move_values, write_endgame_table};
use sawah_agents::review::review_endgame;
use sawah_agents::spec::AgentSpec;
use sawah_agents::table::{TableInfo, ValueType};
use sawah_engine::record::move_token;
use sawah_engine::senet::endgame::Endgame;
use sawah_engine::senet::{Position, Senet};
use sawah_engine::{DiceSource, Game};
use sawah_solver::senet_endgame::{EndgameOptions, solve_senet_endgames};
use std::path::PathBuf;

/// The two-piece table, solved once for every test here.
fn solved_table() -> &'static (PathBuf, Vec<f64>) {
    static TABLE: std::sync::OnceLock<(PathBuf, Vec<f64>)> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| solve_and_write(2))
}

fn solve_and_write(pieces: u8) -> (PathBuf, Vec<f64>) {
    let solution = solve_senet_endgames(
        EndgameOptions {
            pieces,
            ..Default::default()
        },
        None,
        |_| {},
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("sawah-senet-endgame-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("senet-{pieces}.sawah"));
    let info = TableInfo {
        states: solution.values.len() as u64,
        residual: solution.residual,
        tolerance: 1e-10,
        value_type: ValueType::F32,
    };
    write_endgame_table(&path, &solution.index, &solution.values, &info).unwrap();
    (path, solution.values)
}

/// Two pieces against two, both far from home, the first side to throw.
fn start() -> Position {
    Endgame {
        mover: 1 << 3 | 1 << 12,
        other: 1 << 5 | 1 << 14,
    }
    .position()
}

/// Plays a game from `start` where light takes the table's best move and
/// dark the worst, returning the moves as a results file writes them.
fn best_against_worst(table: &EndgameTable, seed: u64) -> Vec<String> {
    let senet = Senet::new();
    let mut dice = DiceSource::from_seed(seed);
    let mut position = start();
    let mut tokens = Vec::new();
    while senet.winner(&position).is_none() {
        let roll = dice.roll(senet.dice());
        let moves = Game::legal_moves(&senet, &position, roll);
        if moves.is_empty() {
            tokens.push(move_token(&senet, roll, None));
            position = Game::pass(&senet, &position);
            continue;
        }
        let values = move_values(&senet, table, &position, &moves).unwrap();
        let pick = (0..moves.len())
            .max_by(|&a, &b| {
                let (a, b) = (values[a], values[b]);
                if position.turn() == sawah_engine::Player::Light {
                    a.total_cmp(&b)
                } else {
                    b.total_cmp(&a)
                }
            })
            .unwrap();
        tokens.push(move_token(&senet, roll, Some(moves[pick])));
        position = Game::apply(&senet, &position, moves[pick]).position;
    }
    tokens
}

#[test]
fn a_written_table_reads_back_and_reviews_games() {
    let (path, values) = solved_table();
    let table = EndgameTable::open(path).unwrap();
    assert_eq!(table.pieces(), 2);
    let index = sawah_engine::senet::endgame::EndgameIndex::new(2).unwrap();
    for i in (0..index.len()).step_by(997) {
        let position = index.endgame(i).position();
        let read = table.value(&position).unwrap();
        assert!((read - values[i as usize]).abs() < 1e-7);
    }
    let senet = Senet::new();
    let mut worst_total = 0.0;
    for seed in 0..20 {
        let tokens = best_against_worst(&table, seed);
        let [light, dark] = review_endgame(&senet, &table, start(), &tokens).unwrap();
        // The best move loses nothing; the worst loses wherever moves differ.
        assert!(light.total_loss_pp < 1e-4, "{light:?}");
        assert_eq!(light.mistakes + light.blunders, 0);
        worst_total += dark.total_loss_pp;
    }
    assert!(worst_total > 10.0, "{worst_total}");
}

#[test]
fn agents_play_exactly_with_an_endgame_table() {
    let (path, _) = solved_table();
    let table = EndgameTable::open(path).unwrap();
    let senet = Senet::new();
    // The hand-made evaluation at one ply with exact leaves: its move values
    // are the table's for a position the table covers.
    let spec = AgentSpec::parse(
        &format!("expectiminimax:depth=0:endgame={}", path.display()),
        "senet",
    )
    .unwrap();
    assert!(spec.to_string().contains(":endgame="));
    let mut agent = spec.build(&senet).unwrap();
    let position = start();
    for roll in 1..=5 {
        let moves = Game::legal_moves(&senet, &position, roll);
        if moves.len() < 2 {
            continue;
        }
        let choice = agent.decide(&senet, &position, roll, &moves);
        let exact = move_values(&senet, &table, &position, &moves).unwrap();
        let got = choice.values.unwrap();
        for (g, e) in got.iter().zip(&exact) {
            assert!((g - e).abs() < 1e-6, "roll {roll}: {got:?} vs {exact:?}");
        }
    }
    // A race rule set has no endgame tables: said so, with what to use.
    let race = sawah_engine::race::preset("ur").unwrap();
    let err = AgentSpec::parse(&format!("heuristic:endgame={}", path.display()), "ur")
        .unwrap()
        .build(&race)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("endgame tables are Senet's"), "{err}");
}
