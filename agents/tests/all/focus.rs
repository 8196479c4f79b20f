//! `focus=K`: the deepest ply searches only the K moves the ply before
//! ranks best, checked against a plain reference search, with `choose`
//! and `decide` agreeing.

use sawah_agents::AgentSpec;
use sawah_agents::agent::focus_on_best;
use sawah_agents::evaluator::best_index;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::search::{Search, SearchOptions};
use sawah_engine::playout::positions_with_rolls;
use sawah_engine::race;
use sawah_engine::senet::Senet;

const PLAIN: SearchOptions = SearchOptions {
    pruning: false,
    table_bits: 0,
};

/// The move a focused search of `ply` plies picks, by plain expectiminimax:
/// every move `ply` rolls deep (the root roll included), then the best
/// `focus` of them one roll deeper, the first best of those.
fn reference<G: HasHeuristic>(
    game: &G,
    position: &G::Position,
    moves: &[G::Move],
    ply: u8,
    focus: usize,
) -> usize {
    let evaluator = game.heuristic();
    let mut search = Search::new(game, &evaluator, PLAIN);
    let shallow = search.move_values(position, moves, ply);
    let best: Vec<usize> = focus_on_best(&shallow, focus);
    let subset: Vec<G::Move> = best.iter().map(|&i| moves[i]).collect();
    let deep = search.move_values(position, &subset, ply + 1);
    best[best_index(&deep)]
}

fn check<G: HasHeuristic + 'static>(game: &G, depth: u8, focus: usize, count: usize) -> usize {
    let spec = format!("expectiminimax:depth={depth}:focus={focus}");
    let spec = AgentSpec::parse(&spec, game.name()).unwrap();
    let mut agent = spec.build(game).unwrap();
    let mut unfocused = AgentSpec::parse(&format!("expectiminimax:depth={depth}"), game.name())
        .unwrap()
        .build(game)
        .unwrap();
    let mut differ = 0;
    for (position, roll) in positions_with_rolls(game, 11, count, 2) {
        let moves = game.legal_moves(&position, roll);
        if moves.len() < 2 {
            continue;
        }
        let expected = moves[reference(game, &position, &moves, depth, focus)];
        let decided = agent.decide(game, &position, roll, &moves).chosen;
        let chosen = agent.choose(game, &position, roll, &moves);
        assert_eq!(decided, expected, "{position:?} roll {roll}: decide");
        assert_eq!(chosen, expected, "{position:?} roll {roll}: choose");
        if unfocused.choose(game, &position, roll, &moves) != expected {
            differ += 1;
        }
        if focus >= moves.len() {
            assert_eq!(unfocused.choose(game, &position, roll, &moves), expected);
        }
    }
    differ
}

#[test]
fn a_focused_search_picks_the_reference_move_on_the_race_family() {
    let game = race::preset("ur").unwrap();
    check(&game, 1, 2, 150);
    // With one move in focus, the deeper ply changes nothing: the
    // shallower search's best move is played (so some choices differ from
    // the full deeper search's).
    let differ = check(&game, 1, 1, 150);
    assert!(differ > 0, "focus=1 plays the shallower choice");
    check(&game, 2, 3, 60);
}

#[test]
fn a_focused_search_picks_the_reference_move_on_senet() {
    check(&Senet::new(), 1, 2, 80);
}

#[test]
fn focus_is_an_option_of_searching_agents_with_a_range() {
    let spec = AgentSpec::parse("expectiminimax:depth=2:focus=3", "ur").unwrap();
    assert_eq!(spec.focus, Some(3));
    assert_eq!(spec.to_string(), "expectiminimax:depth=2:focus=3");
    let json = serde_json::json!({"agent":"neural","model":"m.safetensors","depth":2,"focus":2});
    assert_eq!(AgentSpec::from_json(&json, "ur").unwrap().focus, Some(2));
    for bad in ["focus=0", "focus=65", "focus=two"] {
        let err = AgentSpec::parse(&format!("expectiminimax:{bad}"), "ur").unwrap_err();
        assert!(
            err.to_string().contains("a whole number from 1 to 64"),
            "{bad}: {err}"
        );
    }
    let err = AgentSpec::parse("random:focus=2", "ur").unwrap_err();
    assert!(err.to_string().contains("no option \"focus\""), "{err}");
}
