//! Stopping a search early (a server's time budget or node cap): a stop
//! that never fires changes nothing, one that fires answers from the
//! deepest finished search, never less than one roll deep.

use sawah_agents::search::Stop;
use sawah_agents::{Agent, AgentSpec, HasHeuristic, SearchAgent};
use sawah_engine::playout::positions_with_rolls;
use sawah_engine::race;
use sawah_engine::senet::Senet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

fn never() -> Stop {
    Stop::new(|_| None)
}

fn after(nodes: u64) -> Stop {
    Stop::after_nodes(nodes)
}

fn agent<G: sawah_agents::HasHeuristic + 'static>(
    game: &G,
    spec: &str,
) -> Box<dyn Agent<G> + Send> {
    AgentSpec::parse(spec, game.name())
        .unwrap()
        .build(game)
        .unwrap()
}

#[test]
fn a_stop_that_never_fires_changes_no_answer() {
    let game = race::preset("ur").unwrap();
    for (position, roll) in positions_with_rolls(&game, 3, 40, 2) {
        let moves = game.legal_moves(&position, roll);
        let mut plain = agent(&game, "expectiminimax:depth=2");
        let mut watched = agent(&game, "expectiminimax:depth=2");
        watched.set_stop(Some(never()));
        assert_eq!(
            plain.decide(&game, &position, roll, &moves),
            watched.decide(&game, &position, roll, &moves)
        );
        assert_eq!(
            plain.choose(&game, &position, roll, &moves),
            watched.choose(&game, &position, roll, &moves)
        );
        assert_eq!(
            plain.evaluate(&game, &position),
            watched.evaluate(&game, &position)
        );
    }
}

#[test]
fn a_stop_that_fires_at_once_answers_one_roll_deep() {
    let game = Senet::new();
    let mut searched = 0;
    for (position, roll) in positions_with_rolls(&game, 5, 30, 2) {
        let moves = game.legal_moves(&position, roll);
        let mut shallow = agent(&game, "expectiminimax:depth=0");
        let mut stopped = agent(&game, "expectiminimax:depth=3");
        stopped.set_stop(Some(after(0)));
        let expected = shallow.decide(&game, &position, roll, &moves);
        assert_eq!(stopped.decide(&game, &position, roll, &moves), expected);
        assert_eq!(
            stopped.choose(&game, &position, roll, &moves),
            expected.chosen
        );
        // Evaluating: the one-roll value (depth 0 looks one roll ahead too).
        assert_eq!(
            stopped.evaluate(&game, &position),
            shallow.evaluate(&game, &position)
        );
        searched += 1;
    }
    assert_eq!(searched, 30);
}

#[test]
fn a_stop_ends_the_search_soon_after_it_fires_and_keeps_the_last_full_depth() {
    let game = Senet::new();
    let (position, roll) = positions_with_rolls(&game, 9, 1, 2)[0];
    let moves = game.legal_moves(&position, roll);
    let heuristic = game.heuristic();
    // How many nodes the two finished depths take.
    let mut two = SearchAgent::new(
        "two".into(),
        heuristic.clone(),
        1,
        None,
        0.0,
        0,
        Default::default(),
    );
    let expected = two.decide(&game, &position, roll, &moves);
    let finished = two.last_nodes;
    // A stop that fires once those nodes are passed: the answer is the
    // second depth's, and the third is abandoned within a few hundred nodes.
    let asked = Arc::new(AtomicU64::new(0));
    let last = Arc::clone(&asked);
    let stop = Stop::new(move |nodes| {
        last.store(nodes, Ordering::Relaxed);
        (nodes > finished).then(|| "enough".to_string())
    });
    let mut three = SearchAgent::new(
        "three".into(),
        heuristic,
        3,
        None,
        0.0,
        0,
        Default::default(),
    );
    three.set_stop(Some(stop.clone()));
    let got = three.decide(&game, &position, roll, &moves);
    assert_eq!(got, expected);
    assert_eq!(three.last_depth, 1);
    assert_eq!(three.finished_depth(), Some(1));
    // The one-roll search runs without the stop (it always finishes); the
    // stop counted every other node, and stopped within a check interval.
    let mut one = SearchAgent::new(
        "one".into(),
        game.heuristic(),
        0,
        None,
        0.0,
        0,
        Default::default(),
    );
    one.decide(&game, &position, roll, &moves);
    let one_roll = one.last_nodes;
    assert_eq!(stop.nodes(), three.last_nodes - one_roll);
    assert!(
        three.last_nodes <= finished + one_roll + 300,
        "{} nodes",
        three.last_nodes
    );
    assert!(asked.load(Ordering::Relaxed) > finished);
    assert_eq!(stop.reason(), Some("enough"));
}

#[test]
fn one_stop_counts_every_search_it_watches_and_fires_at_the_same_node_every_time() {
    let game = race::preset("masters").unwrap();
    let cases = positions_with_rolls(&game, 4, 30, 2);
    let run = |budget: u64| {
        let stop = Stop::after_nodes(budget);
        let mut answers = Vec::new();
        for (position, roll) in &cases {
            let moves = game.legal_moves(position, *roll);
            let mut searcher = agent(&game, "expectiminimax:depth=2");
            searcher.set_stop(Some(stop.clone()));
            answers.push((
                searcher.decide(&game, position, *roll, &moves),
                searcher.finished_depth(),
            ));
        }
        (answers, stop.fired(), stop.nodes())
    };
    let (free, fired, total) = run(u64::MAX);
    assert!(!fired);
    // A budget of half the total fires part way through, and the searches
    // after it answer one roll deep.
    let (first, fired, _) = run(total / 2);
    assert!(fired);
    assert_eq!(first[0], free[0], "the first search is within the budget");
    assert_eq!(first.last().unwrap().1, Some(0));
    // Counting nodes is deterministic: the same cut every time.
    assert_eq!(run(total / 2).0, first);
}
