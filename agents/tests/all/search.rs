//! Star2 search against plain expectiminimax: the same values and moves,
//! far fewer nodes.

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
const STAR2: SearchOptions = SearchOptions {
    pruning: true,
    table_bits: 16,
};

/// Compares plain and Star2 at `ply` (rolls after the move) on `count`
/// positions; returns the node totals.
fn compare<G: HasHeuristic>(game: &G, ply: u8, count: usize, seed: u64) -> (u64, u64) {
    let depth = ply + 1;
    let evaluator = game.heuristic();
    let (mut plain_nodes, mut star_nodes) = (0, 0);
    for (position, roll) in positions_with_rolls(game, seed, count, 2) {
        let moves = game.legal_moves(&position, roll);
        let mut plain = Search::new(game, &evaluator, PLAIN);
        let expected = plain.move_values(&position, &moves, depth);
        // Every move's exact value, with pruning inside the subtrees.
        let mut exact = Search::new(game, &evaluator, STAR2);
        let got = exact.move_values(&position, &moves, depth);
        for (e, g) in expected.iter().zip(&got) {
            assert!(
                (e - g).abs() < 1e-12,
                "{position:?} roll {roll}: {expected:?} vs {got:?}"
            );
        }
        // The choice, with pruning across the root moves too.
        let mut star = Search::new(game, &evaluator, STAR2);
        let (chosen, values) = star.best_move(&position, &moves, depth);
        let plain_choice = best_index(&expected);
        assert_eq!(
            chosen, plain_choice,
            "{position:?} roll {roll}: {expected:?} vs {values:?}"
        );
        assert!((values[chosen] - expected[chosen]).abs() < 1e-12);
        for (v, e) in values.iter().zip(&expected) {
            assert!(
                *v >= e - 1e-12,
                "a bound below the true value: {values:?} vs {expected:?}"
            );
        }
        plain_nodes += plain.nodes;
        star_nodes += star.nodes;
    }
    (plain_nodes, star_nodes)
}

#[test]
fn star2_matches_plain_search_on_the_race_family() {
    for name in ["sawah", "ur", "masters", "marks-roll-only"] {
        let rules = race::preset(name).unwrap();
        let count = if name == "sawah" { 1000 } else { 250 };
        let (plain, star) = compare(&rules, 1, count, 1);
        assert!(star < plain, "{name}: {star} vs {plain}");
    }
}

#[test]
fn star2_matches_plain_search_on_senet() {
    let (plain, star) = compare(&Senet::new(), 1, 1000, 2);
    assert!(star < plain, "{star} vs {plain}");
}

/// The node counts are deterministic, so the reduction is a checked fact
/// (the figures with speed are in docs/BENCHMARKS.md, from `sawah bench-search`).
#[test]
fn star2_visits_at_least_three_times_fewer_nodes_at_depth_3() {
    let rules = race::preset("sawah").unwrap();
    let (plain, star) = compare(&rules, 3, 30, 3);
    let ratio = plain as f64 / star as f64;
    eprintln!("sawah depth 3: plain {plain} nodes, star2 {star} nodes, {ratio:.2}x");
    assert!(ratio >= 3.0, "sawah: {ratio:.2}x");
    let (plain, star) = compare(&Senet::new(), 3, 30, 4);
    let ratio = plain as f64 / star as f64;
    eprintln!("senet depth 3: plain {plain} nodes, star2 {star} nodes, {ratio:.2}x");
    assert!(ratio >= 3.0, "senet: {ratio:.2}x");
}

#[test]
fn position_values_agree_too() {
    let game = Senet::new();
    let evaluator = game.heuristic();
    for (position, _) in positions_with_rolls(&game, 9, 100, 0) {
        let plain = Search::new(&game, &evaluator, PLAIN).position_value(&position, 3);
        let star = Search::new(&game, &evaluator, STAR2).position_value(&position, 3);
        assert!((plain - star).abs() < 1e-12);
    }
}

/// Tables are reused by later searches on the same thread: the answers
/// must be exactly those of a search with a fresh table (a new thread),
/// even after searches of the same positions by another evaluator.
#[test]
fn a_reused_table_answers_as_a_fresh_one() {
    use sawah_agents::evaluator::{Evaluator, NoisyEvaluator};
    let game = race::preset("ur").unwrap();
    let cases = positions_with_rolls(&game, 11, 30, 2);
    fn values<E: Evaluator<race::RuleSet>>(
        game: &race::RuleSet,
        evaluator: &E,
        cases: &[(race::Position, u8)],
    ) -> Vec<Vec<f64>> {
        cases
            .iter()
            .map(|(position, roll)| {
                let moves = game.legal_moves(position, *roll);
                Search::new(game, evaluator, STAR2).move_values(position, &moves, 3)
            })
            .collect()
    }
    // This thread's tables have seen the same positions with other values.
    let _ = values(
        &game,
        &NoisyEvaluator::new(game.heuristic(), 0.3, 7),
        &cases,
    );
    let evaluator = game.heuristic();
    let reused = values(&game, &evaluator, &cases);
    let fresh: Vec<Vec<f64>> = cases
        .iter()
        .map(|case| {
            std::thread::scope(|scope| {
                scope
                    .spawn(|| values(&game, &evaluator, std::slice::from_ref(case)))
                    .join()
                    .unwrap()
            })
            .pop()
            .unwrap()
        })
        .collect();
    assert_eq!(reused, fresh);
}

/// An evaluator that asks to be remembered (as a network does) and counts
/// the evaluations it is asked for.
struct Remembered<E> {
    inner: E,
    remember: bool,
    calls: std::cell::Cell<u64>,
}

impl<G: sawah_engine::Game, E: sawah_agents::evaluator::Evaluator<G>>
    sawah_agents::evaluator::Evaluator<G> for Remembered<E>
{
    fn evaluate(&self, game: &G, position: &G::Position) -> f64 {
        self.calls.set(self.calls.get() + 1);
        self.inner.evaluate(game, position)
    }

    fn worth_remembering(&self) -> bool {
        self.remember
    }
}

/// Keeping leaf values in the table changes nothing but the evaluations
/// asked for: every value (bit for bit), choice and node count is what the
/// search without it gives, which is plain search's, with far fewer
/// evaluations over iterative deepening (as an agent searches).
#[test]
fn remembered_leaves_change_nothing_but_the_evaluations() {
    fn run<G: HasHeuristic>(
        game: &G,
        remember: bool,
        cases: &[(G::Position, u8)],
    ) -> (Vec<f64>, u64, u64) {
        let evaluator = Remembered {
            inner: game.heuristic(),
            remember,
            calls: std::cell::Cell::new(0),
        };
        let (mut values, mut nodes) = (Vec::new(), 0);
        for (position, roll) in cases {
            let moves = game.legal_moves(position, *roll);
            let mut search = Search::new(game, &evaluator, STAR2);
            for depth in 1..=3 {
                values.extend(search.move_values(position, &moves, depth));
                let (chosen, best) = search.best_move(position, &moves, depth);
                values.push(chosen as f64);
                values.extend(best);
            }
            nodes += search.nodes;
        }
        (values, nodes, evaluator.calls.get())
    }
    fn check<G: HasHeuristic>(game: &G, seed: u64) {
        let cases = positions_with_rolls(game, seed, 60, 2);
        let (kept, kept_nodes, kept_calls) = run(game, true, &cases);
        let (fresh, fresh_nodes, fresh_calls) = run(game, false, &cases);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&kept), bits(&fresh), "{}", game.name());
        assert_eq!(kept_nodes, fresh_nodes);
        eprintln!(
            "{}: {kept_calls} evaluations remembered, {fresh_calls} without",
            game.name()
        );
        assert!(
            (kept_calls as f64) < 0.8 * fresh_calls as f64,
            "{}: {kept_calls} vs {fresh_calls}",
            game.name()
        );
    }
    check(&race::preset("masters").unwrap(), 5);
    check(&Senet::new(), 6);
    // And against plain search, the reference.
    let game = race::preset("ur").unwrap();
    let remembered = Remembered {
        inner: game.heuristic(),
        remember: true,
        calls: std::cell::Cell::new(0),
    };
    let heuristic = game.heuristic();
    for (position, roll) in positions_with_rolls(&game, 7, 100, 2) {
        let moves = game.legal_moves(&position, roll);
        let mut search = Search::new(&game, &remembered, STAR2);
        for depth in 1..=3 {
            let got = search.move_values(&position, &moves, depth);
            let expected =
                Search::new(&game, &heuristic, PLAIN).move_values(&position, &moves, depth);
            for (e, g) in expected.iter().zip(&got) {
                assert!(
                    (e - g).abs() < 1e-12,
                    "{position:?} roll {roll}: {expected:?} vs {got:?}"
                );
            }
        }
    }
}
