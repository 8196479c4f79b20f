//! Unit tests of the solver's parts.

use crate::record::{NONE, SAME};
use crate::{pair::*, plan::*, policy::*, solve::*, sweeps::*, values::*};
use sawah_engine::race::{LayerPair, PositionIndex};
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;

proptest! {
    /// The best successors kept on the stack are the `width + 1` best
    /// of a stable sort by value, best first (ties: the first
    /// generated first), whatever the values and the flags; when every
    /// move fits, the first slot holds that sort's first and the
    /// others every other move.
    #[test]
    fn best_successors_are_the_best_of_a_stable_sort(
        // Few distinct values, so that ties are common.
        table in proptest::collection::vec(0u8..6, 16),
        successors in proptest::collection::vec((0u32..16, any::<bool>()), 0..=9),
        width in 1usize..=8,
    ) {
        let values = Values(
            table
                .iter()
                .map(|&v| AtomicU64::new((f64::from(v) / 8.0).to_bits()))
                .collect(),
        );
        let words: Vec<u32> = successors
            .iter()
            .map(|&(i, same)| i | if same { SAME } else { 0 })
            .collect();
        let mut expected: Vec<(f64, u32)> = words
            .iter()
            .map(|&w| (successor_value(&values, w), w))
            .collect();
        expected.sort_by(|x, y| y.0.total_cmp(&x.0));
        expected.truncate(width + 1);
        if words.len() > width {
            let top = best_successors(&words, &values, width);
            prop_assert_eq!(&top[..=width], &expected[..]);
        } else if let Some(&(best, _)) = expected.first() {
            let mut slots = vec![0; width];
            prop_assert_eq!(best_first(&words, &values, &mut slots), best);
            prop_assert_eq!(slots[0], expected[0].1);
            let mut kept = slots[..words.len()].to_vec();
            kept.sort_unstable();
            let mut all = words.clone();
            all.sort_unstable();
            prop_assert_eq!(kept, all);
            prop_assert!(slots[words.len()..].iter().all(|&s| s == NONE));
        }
    }
}

/// The layouts for a pair of 100 positions (50 twin pairs) beside 1,000
/// values held, 4 moving rolls and 7 pieces, with `bytes` per twin pair
/// to spare, whose packed records of every move fill every slot.
fn layout_with(bytes: u64) -> Option<Layout> {
    Layout::that_fits(1_000, (100, 50 * 56), 4, 7, 8 * 1_000 + 50 * bytes)
}

#[test]
fn layouts_cost_their_twins_candidates_choices_and_margins() {
    // Bytes per twin pair (at most: packed records take fewer).
    let layout = |width, choices| Layout { width, choices }.per_twin_pair(4, 7).bytes();
    assert_eq!(layout(1, false), 8 + 32 + 1);
    // Margins for the candidates and for the choices, and a byte per
    // position for the changes extrapolated along; each roll's choice is
    // one of its candidates (split: the record holds the others).
    assert_eq!(layout(2, true), 8 + 32 + 32 + 2 + 2);
    // Every move needs no margin for its candidates.
    // (At most: packed, with a byte for the record's length, and the
    // choices apart, a word per roll.)
    assert_eq!(layout(7, true), 8 + 224 + 1 + 32 + 1 + 2);
    assert_eq!(Layout::NARROWEST.bytes(100, 0, 4, 7), 50 * 41);
    // Packed records of every move take the words counted, and a byte
    // per twin pair for their length.
    let every = Layout {
        width: 7,
        choices: true,
    };
    assert_eq!(
        every.bytes(100, 1_000, 4, 7),
        50 * (8 + 1 + 32 + 1 + 2) + 4_000
    );
}

/// Packed, every move fits where its records take no more than the
/// partial widths' would.
#[test]
fn packed_records_of_every_move_fit_in_less() {
    // 50 twin pairs, each with 2 moves per roll (16 words).
    let fits = |bytes: u64| Layout::that_fits(1_000, (100, 50 * 16), 4, 7, 8 * 1_000 + 50 * bytes);
    let every = Layout {
        width: 7,
        choices: true,
    };
    assert_eq!(fits(8 + 1 + 64 + 32 + 1 + 2), Some(every));
    assert_ne!(fits(8 + 1 + 64 + 32 + 1 + 2 - 1), Some(every));
}

/// The memory plan of the 7-piece 16-square sets at the default budget
/// (docs/solver.md): the largest pair gets three candidates with the
/// choices, every other pair every move (packed) with the choices.
#[test]
fn sawah_layouts_at_the_default_budget() {
    let rules = sawah_engine::race::preset("sawah").expect("sawah is a preset");
    let index = PositionIndex::new(&rules);
    let rolls = Rolls::new(&rules);
    let budget = SolveOptions::default().memory;
    for pair in LayerPair::all(rules.pieces()) {
        // A coarser sample than the solver's, for speed.
        let words = packed_words_estimate(&rules, &index, &rolls, pair, 4_099);
        let layout = Layout::that_fits(
            held_values(&index, rules.pieces(), pair, true),
            (index.pair_len(pair), words),
            rolls.moving.len(),
            rules.pieces(),
            budget,
        );
        let width = if pair == LayerPair::new(0, 1) { 3 } else { 7 };
        let expected = Layout {
            width,
            choices: true,
        };
        assert_eq!(layout, Some(expected), "layers {pair}");
    }
}

/// `in_order` on `threads` threads over 1,000 items: each item's value
/// summed, and, per item, the thread that worked it and the order in
/// which it was taken.
fn run_in_order(threads: usize) -> (u64, Vec<(usize, usize)>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let mut items: Vec<(u64, (usize, usize))> = (0..1000).map(|k| (k, (0, 0))).collect();
    let taken = std::sync::atomic::AtomicUsize::new(0);
    let sum = pool.install(|| {
        in_order(
            &mut items,
            |item| {
                let thread = rayon::current_thread_index().unwrap_or(usize::MAX);
                item.1 = (thread, taken.fetch_add(1, Ordering::Relaxed));
                item.0
            },
            |x, y| x + y,
        )
    });
    (sum, items.into_iter().map(|(_, taken)| taken).collect())
}

#[test]
fn in_order_works_each_item_once_and_hands_them_out_in_order() {
    // One thread takes them exactly in order.
    let (sum, taken) = run_in_order(1);
    assert_eq!(sum, 999 * 1000 / 2);
    for (k, &(_, at)) in taken.iter().enumerate() {
        assert_eq!(at, k, "item {k}");
    }
    // On three, each item is worked once, and each thread takes its
    // items in order. (How far apart two threads run depends on the
    // scheduler: a thread can be held up between taking an item and
    // noting it.)
    let (sum, taken) = run_in_order(3);
    assert_eq!(sum, 999 * 1000 / 2);
    let mut at: Vec<usize> = taken.iter().map(|&(_, at)| at).collect();
    at.sort_unstable();
    assert_eq!(at, (0..1000).collect::<Vec<_>>());
    for thread in 0..3 {
        let mine: Vec<usize> = taken
            .iter()
            .filter(|&&(t, _)| t == thread)
            .map(|&(_, at)| at)
            .collect();
        assert!(mine.is_sorted(), "thread {thread}: {mine:?}");
    }
}

/// `values` as the solver holds them.
fn values_of(values: &[f64]) -> Values {
    Values(values.iter().map(|v| AtomicU64::new(v.to_bits())).collect())
}

/// The first estimates of every unfinished position of `masters-3`,
/// from its solution's values one score higher, against 0.5: the mean
/// error falls by more than half, and each estimate lies between its
/// bounds.
#[test]
fn first_estimates_start_closer_to_the_solution_than_a_half() {
    let rules = sawah_engine::race::preset("masters-3").expect("masters-3 is a preset");
    let solution = solve(&rules, SolveOptions::default(), |_| {}).expect("solves");
    let index = &solution.index;
    let values = values_of(&solution.values);
    let (mut estimated, mut half, mut count) = (0.0, 0.0, 0u64);
    for pair in LayerPair::all(rules.pieces()) {
        for block in &index.pair_blocks(pair) {
            index.for_each_in_block(block, |i, position| {
                let bounds = Bounds::of(&rules, index, position);
                let estimate = bounds.estimate(&values);
                let (worse, better) = (values.get(bounds.worse), values.get(bounds.better));
                assert!(worse.min(better) <= estimate && estimate <= worse.max(better));
                let exact = values.get(i);
                estimated += (estimate - exact).abs();
                half += (0.5 - exact).abs();
                count += 1;
            });
        }
    }
    let (estimated, half) = (estimated / count as f64, half / count as f64);
    assert!(
        estimated < half / 2.0,
        "mean error {estimated:.4} from the estimates, {half:.4} from 0.5"
    );
}

#[test]
fn every_move_comes_first_then_the_choices_then_width() {
    let layout = |width, choices| Some(Layout { width, choices });
    // Packed records need a byte more per twin pair, for its length.
    assert_eq!(layout_with(268), layout(7, true));
    assert_eq!(layout_with(267), layout(7, false));
    assert_eq!(layout_with(233), layout(7, false));
    // Split, the choices cost only their margin and the changes.
    assert_eq!(layout_with(232), layout(4, true));
    assert_eq!(layout_with(140), layout(4, true));
    assert_eq!(layout_with(139), layout(3, true));
    assert_eq!(layout_with(108), layout(3, true));
    // Two candidates with the choices before three or four without.
    assert_eq!(layout_with(107), layout(2, true));
    assert_eq!(layout_with(76), layout(2, true));
    assert_eq!(layout_with(75), layout(2, false));
    assert_eq!(layout_with(73), layout(2, false));
    // One candidate is its own choice.
    assert_eq!(layout_with(72), layout(1, false));
    assert_eq!(layout_with(41), layout(1, false));
    assert_eq!(layout_with(40), None);
}

/// Each layout solves a layer pair to the same values: every move
/// (packed, the choices apart), fewer candidates with the choices
/// split from the records, and without the choices; from the pair's first
/// estimates, the pairs above it solved.
#[test]
fn every_layout_solves_the_largest_pair_to_the_same_values() {
    let rules = sawah_engine::race::preset("masters-3").expect("masters-3 is a preset");
    let options = SolveOptions {
        tolerance: 1e-14,
        ..SolveOptions::default()
    };
    let solution = solve(&rules, options, |_| {}).expect("solves");
    let index = &solution.index;
    let pair = LayerPair::all(rules.pieces())
        .into_iter()
        .max_by_key(|&pair| index.pair_len(pair))
        .expect("a pair");
    let ranges = index.pair_ranges(pair);
    let rolls = Rolls::new(&rules);
    for (width, choices) in [(3, true), (2, true), (2, false), (1, false)] {
        let layout = Layout { width, choices };
        let values = values_of(&solution.values);
        // The pair's own values start over (from its first estimates).
        for i in ranges.iter().flat_map(|r| r.clone()) {
            values.set(i, 0.0);
        }
        let twin_pairs = (ranges[0].end - ranges[0].start) as usize;
        let mut memory = PolicyMemory::reserve(std::iter::once(
            layout
                .per_twin_pair(rolls.moving.len(), rules.pieces())
                .times(twin_pairs),
        ));
        let report = solve_pair(
            &rules,
            index,
            &values,
            pair,
            layout,
            &mut memory,
            options,
            &mut |_| {},
        );
        assert!(report.residual <= 1e-14, "{layout:?}: {report:?}");
        if width == 2 && choices {
            assert!(
                report.choice_sweeps > 0 && report.bellman_passes > 1,
                "{report:?}"
            );
        }
        let worst = ranges
            .iter()
            .flat_map(|r| r.clone())
            .map(|i| (values.get(i) - solution.values[i as usize]).abs())
            .fold(0.0, f64::max);
        assert!(worst <= 1e-12, "{layout:?}: differs by {worst:e}");
    }
}
