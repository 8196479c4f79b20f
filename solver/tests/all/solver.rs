//! The fast solver against a deliberately simple reference: every valid
//! position listed, a hash map from position to slot, and plain value
//! iteration over all of them at once: no layers, no index, no ordering.

use sawah_engine::race::{self, LayerPair, Position, RuleSet, Setup, SideSetup};
use sawah_engine::{ByPlayer, Player};
use sawah_solver::{LayerReport, SolveOptions, solve};
use std::collections::HashMap;

fn all_sides(rules: &RuleSet) -> Vec<SideSetup> {
    let len = rules.route_len();
    let pieces = rules.pieces();
    let mut sides = Vec::new();
    for bits in 0u32..(1 << len) {
        let on_board = bits.count_ones() as u8;
        if on_board > pieces {
            continue;
        }
        let squares: Vec<u8> = (1..=len).filter(|s| bits >> (s - 1) & 1 != 0).collect();
        for scored in 0..=(pieces - on_board) {
            sides.push(SideSetup {
                waiting: pieces - on_board - scored,
                scored,
                squares: squares.clone(),
            });
        }
    }
    sides
}

/// Values of every position with light to move, by in-place value iteration
/// in list order until a sweep changes nothing by more than 1e-15.
fn reference_values(rules: &RuleSet) -> HashMap<Position, f64> {
    let sides = all_sides(rules);
    let mut positions = Vec::new();
    for light in &sides {
        for dark in &sides {
            let setup = Setup {
                turn: Player::Light,
                sides: ByPlayer {
                    light: light.clone(),
                    dark: dark.clone(),
                },
            };
            if let Ok(position) = rules.position(&setup) {
                positions.push(position);
            }
        }
    }
    let slot: HashMap<Position, usize> =
        positions.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let find = |p: &Position| -> usize {
        let normal = if p.turn() == Player::Light {
            *p
        } else {
            p.flipped()
        };
        slot[&normal]
    };
    let mut values = vec![0.5; positions.len()];
    for (i, p) in positions.iter().enumerate() {
        if let Some(w) = rules.winner(p) {
            values[i] = if w == Player::Light { 1.0 } else { 0.0 };
        }
    }
    loop {
        let mut change: f64 = 0.0;
        for (i, p) in positions.iter().enumerate() {
            if rules.winner(p).is_some() {
                continue;
            }
            let mut v = 0.0;
            for (roll, prob) in rules.dice().outcomes() {
                let moves = rules.legal_moves(p, roll);
                let best = if moves.is_empty() {
                    1.0 - values[find(&rules.pass(p))]
                } else {
                    moves
                        .iter()
                        .map(|&m| {
                            let o = rules.apply(p, m);
                            if rules.winner(&o.position) == Some(Player::Light) {
                                1.0
                            } else if o.position.turn() == Player::Light {
                                values[find(&o.position)]
                            } else {
                                1.0 - values[find(&o.position)]
                            }
                        })
                        .fold(0.0, f64::max)
                };
                v += prob * best;
            }
            change = change.max((v - values[i]).abs());
            values[i] = v;
        }
        if change < 1e-15 {
            break;
        }
    }
    positions.into_iter().zip(values).collect()
}

fn check_against_reference(name: &str) -> Vec<LayerReport> {
    check_against_reference_with(name, SolveOptions::default())
}

/// Solves `name` to 1e-14 and compares every value with the reference;
/// returns the solver's layer reports.
fn check_against_reference_with(name: &str, options: SolveOptions) -> Vec<LayerReport> {
    let rules = race::preset(name).unwrap();
    let reference = reference_values(&rules);
    let solution = solve(
        &rules,
        SolveOptions {
            tolerance: 1e-14,
            ..options
        },
        |_| {},
    )
    .unwrap();
    assert_eq!(solution.values.len(), reference.len(), "{name}");
    assert!(solution.residual <= 1e-14);
    let mut worst: f64 = 0.0;
    for (position, value) in &reference {
        worst = worst.max((solution.value(position) - value).abs());
    }
    assert!(worst <= 1e-12, "{name}: the solvers differ by {worst:e}");
    solution.layers
}

#[test]
fn one_and_two_pieces_on_every_route_agree_with_the_reference() {
    for name in [
        "sawah-1",
        "ur-1",
        "masters-1",
        "sawah-2",
        "ur-2",
        "masters-2",
    ] {
        check_against_reference(name);
    }
}

#[test]
fn three_pieces_agree_with_the_reference() {
    let layers = check_against_reference("ur-3");
    // Every move is recorded (three per roll), so most sweeps read only the
    // moves the sweep before chose: that path is what this checks too.
    let largest = layers.iter().max_by_key(|l| l.states).unwrap();
    assert_eq!(largest.candidates, 3);
    assert!(
        largest.choice_sweeps > 0 && largest.choice_sweeps < largest.sweeps,
        "{largest:?}"
    );
    // Once the choices settle, the sweeps over every candidate read most
    // pairs from their choices alone (their choice margins hold): what
    // the agreement above checks too.
    let over_candidates = f64::from(largest.sweeps - largest.choice_sweeps);
    assert!(largest.read_in_full < over_candidates - 0.5, "{largest:?}");
}

#[test]
fn extrapolating_along_steady_changes_changes_no_value() {
    // One thread, so that the sweeps (and so the extrapolations) are the
    // same from run to run: with two, the blocks' order varies. sawah-3's
    // tails are long enough to extrapolate along (the other 3-piece
    // presets' are not, single-threaded).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let rules = race::preset("sawah-3").unwrap();
    let solve_with = |extrapolate| {
        let options = SolveOptions {
            tolerance: 1e-14,
            extrapolate,
            ..SolveOptions::default()
        };
        pool.install(|| solve(&rules, options, |_| {}).unwrap())
    };
    let (with, without) = (solve_with(true), solve_with(false));
    let extrapolations = |solution: &sawah_solver::Solution| -> u32 {
        solution.layers.iter().map(|l| l.extrapolations).sum()
    };
    assert_eq!(extrapolations(&without), 0);
    assert!(extrapolations(&with) > 0, "nothing extrapolated");
    let worst = with
        .values
        .iter()
        .zip(&without.values)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "the two differ by {worst:e}");
}

/// A memory budget that holds a preset's values and, for its largest layer
/// pair, one candidate move per roll (4 moving rolls: 4 + 16 bytes per
/// position and a byte of margin per twin pair) but not two (36 bytes),
/// which for a 2-piece preset is every move.
fn one_candidate_budget(name: &str) -> u64 {
    let (positions, largest) = sizes(name);
    8 * positions + 30 * largest
}

/// A preset's positions and the positions of its largest layer pair.
fn sizes(name: &str) -> (u64, u64) {
    let rules = race::preset(name).unwrap();
    let index = sawah_engine::race::PositionIndex::new(&rules);
    let size = |a: u8, b: u8| index.layer_range(a, b).end - index.layer_range(a, b).start;
    let p = rules.pieces();
    let largest = (0..p)
        .flat_map(|a| (a..p).map(move |b| (a, b)))
        .map(|(a, b)| {
            if a == b {
                size(a, a)
            } else {
                size(a, b) + size(b, a)
            }
        })
        .max()
        .unwrap();
    (index.len(), largest)
}

#[test]
fn a_tight_memory_budget_records_fewer_candidates_and_still_agrees() {
    for name in ["masters-2", "ur-2"] {
        let options = SolveOptions {
            memory: one_candidate_budget(name),
            ..SolveOptions::default()
        };
        let mut widths = Vec::new();
        let solution = solve(&race::preset(name).unwrap(), options, |r| {
            widths.push((r.states, r.candidates, r.choice_sweeps))
        })
        .unwrap();
        let largest = widths.iter().max().unwrap();
        assert_eq!(largest.1, 1, "{name}: {widths:?}");
        // One candidate per roll is its own choice: no separate choice sweeps.
        assert_eq!(largest.2, 0, "{name}: {widths:?}");
        // Later Bellman passes took the candidates of the pairs whose
        // margins held instead of generating every move again.
        let policy_iterated = solution.layers.iter().max_by_key(|r| r.states).unwrap();
        assert!(
            policy_iterated.bellman_passes > 1
                && policy_iterated.generated_passes
                    < f64::from(policy_iterated.bellman_passes) - 0.5,
            "{name}: {} passes, {} generated",
            policy_iterated.bellman_passes,
            policy_iterated.generated_passes
        );
        // Smaller pairs record every move (two pieces: two per roll).
        assert!(widths.iter().any(|w| w.1 == 2), "{name}: {widths:?}");
        check_against_reference_with(name, options);
    }
}

#[test]
fn a_budget_too_small_for_one_candidate_is_refused_with_what_it_needs() {
    let options = SolveOptions {
        memory: one_candidate_budget("ur-2") / 2,
        ..SolveOptions::default()
    };
    let error = solve(&race::preset("ur-2").unwrap(), options, |_| {})
        .err()
        .expect("refused");
    let text = error.to_string();
    assert!(text.contains("ur-2 needs at least"), "{text}");
    assert!(text.contains("budget"), "{text}");
}

#[test]
fn one_piece_each_on_the_last_square_wins_four_sevenths() {
    // Light bears off with a 1 (probability 1/4); otherwise nothing moves
    // and the same position recurs with the roles swapped:
    // V = 1/4 + 3/4 (1 - V), so V = 4/7. The Finkel route's last square is private.
    let rules = race::preset("ur-1").unwrap();
    let solution = solve(&rules, SolveOptions::default(), |_| {}).unwrap();
    let setup = Setup {
        turn: Player::Light,
        sides: ByPlayer {
            light: SideSetup {
                waiting: 0,
                scored: 0,
                squares: vec![14],
            },
            dark: SideSetup {
                waiting: 0,
                scored: 0,
                squares: vec![14],
            },
        },
    };
    let position = rules.position(&setup).unwrap();
    assert!((solution.value(&position) - 4.0 / 7.0).abs() < 1e-10);
    // Two steps from home against one: light needs a 2 (3/8) or a 1 then …
    // checked numerically against the reference above; here: the value is
    // the same seen from either colour.
    assert!((solution.value(&position.flipped()) - 4.0 / 7.0).abs() < 1e-10);
}

#[test]
fn start_values_of_the_small_presets_favour_the_first_player_a_little() {
    for name in [
        "sawah-1",
        "ur-1",
        "masters-1",
        "sawah-2",
        "ur-2",
        "masters-2",
    ] {
        let rules = race::preset(name).unwrap();
        let solution = solve(&rules, SolveOptions::default(), |_| {}).unwrap();
        let v = solution.value(&rules.start());
        assert!(
            (0.5..0.65).contains(&v),
            "{name}: the first player's edge is modest, got {v}"
        );
    }
}

#[test]
fn rule_sets_too_large_to_index_are_refused_with_a_reason() {
    // 15 pieces on a 30-square route: far more than 2^30 positions.
    let mut spec = race::preset_spec("sawah").unwrap();
    spec.name = "huge".into();
    spec.pieces = 15;
    let mut board = spec.board.clone();
    let extra: Vec<_> = (12..26).map(|c| race::Cell::new(1, c)).collect();
    board.extend(extra.iter().copied());
    spec.board = board;
    spec.light_route.extend(extra);
    let rules = RuleSet::new(spec).unwrap();
    let err = solve(&rules, SolveOptions::default(), |_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("huge") && err.contains("2^30"), "{err}");
}

/// With checkpoints, a pair holds only the values it reads (its own score
/// diagonal and the one above it, and the finished positions): a budget
/// below every value plus one candidate for the largest pair is enough,
/// and the values read back from the checkpoints at the end agree with
/// the reference.
#[test]
fn with_checkpoints_values_no_pair_reads_are_released_and_read_back() {
    let name = "ur-2";
    let rules = race::preset(name).unwrap();
    let reference = reference_values(&rules);
    let (positions, largest) = sizes(name);
    let options = SolveOptions {
        tolerance: 1e-14,
        // One candidate: 41 bytes per twin pair.
        memory: 8 * positions + 41 * largest / 2 - 8,
        ..SolveOptions::default()
    };
    // Without checkpoints every value is held: refused.
    assert!(solve(&rules, options, |_| {}).is_err());
    let dir = std::env::temp_dir().join(format!("sawah-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let solution =
        sawah_solver::solve_with_checkpoints(&rules, options, Some(&dir), |_| {}).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let worst = reference
        .iter()
        .map(|(position, value)| (solution.value(position) - value).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "{name}: the solvers differ by {worst:e}");
}

/// A released pair's checkpoint that is gone by the end is an error that
/// says so, not values silently left at 0.
#[test]
fn a_released_pair_whose_checkpoint_is_gone_is_an_error() {
    let rules = race::preset("ur-2").unwrap();
    let dir = std::env::temp_dir().join(format!("sawah-gone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Pair (1, 1) is released when (0, 0) starts; delete the checkpoints then.
    let result =
        sawah_solver::solve_with_checkpoints(&rules, SolveOptions::default(), Some(&dir), |r| {
            if r.scores == LayerPair::new(0, 0) {
                let _ = std::fs::remove_dir_all(&dir);
            }
        });
    let _ = std::fs::remove_dir_all(&dir);
    let text = result.err().expect("refused").to_string();
    assert!(
        text.contains("layers (1, 1)") && text.contains("could not be read back"),
        "{text}"
    );
}

/// A damaged checkpoint is not used: the pair is solved again, to the same
/// values, and the report says which file was ignored and why.
#[test]
fn a_damaged_checkpoint_is_solved_again_and_reported() {
    let rules = race::preset("ur-2").unwrap();
    let dir = std::env::temp_dir().join(format!("sawah-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let first =
        sawah_solver::solve_with_checkpoints(&rules, SolveOptions::default(), Some(&dir), |_| {})
            .unwrap();
    let file = dir.join("layers-0-1.bin");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 8]).unwrap();
    let mut told = Vec::new();
    let again =
        sawah_solver::solve_with_checkpoints(&rules, SolveOptions::default(), Some(&dir), |r| {
            if let Some(reason) = &r.ignored_checkpoint {
                told.push((r.scores, reason.clone()));
            }
        })
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(told.len(), 1, "told once: {told:?}");
    assert_eq!(told[0].0, LayerPair::new(0, 1));
    assert!(
        told[0].1.contains("layers-0-1.bin") && told[0].1.contains("bytes of values"),
        "{}",
        told[0].1
    );
    let layer = again
        .layers
        .iter()
        .find(|l| l.scores == LayerPair::new(0, 1))
        .unwrap();
    assert!(layer.sweeps > 0, "(0, 1) was solved again");
    assert!(layer.ignored_checkpoint.is_some());
    assert!(
        again
            .layers
            .iter()
            .filter(|l| l.scores != LayerPair::new(0, 1))
            .all(|l| l.sweeps == 0),
        "the others resumed"
    );
    let start = rules.start();
    assert!((first.value(&start) - again.value(&start)).abs() < 1e-12);
}

/// A partial solve of the late layers gives, on every position it holds,
/// the values of the whole solve (to the tolerance), and holds no other
/// position; with checkpoints too, and on every diagonal of ur-3 and
/// masters-3, plus a set with part of a diagonal.
#[test]
fn a_partial_solve_of_the_late_layers_agrees_with_the_whole_solve_where_it_holds() {
    use sawah_engine::race::{LayerSet, PositionIndex};
    let options = SolveOptions {
        tolerance: 1e-13,
        ..SolveOptions::default()
    };
    for name in ["ur-3", "masters-3"] {
        let rules = race::preset(name).unwrap();
        let whole = solve(&rules, options, |_| {}).unwrap();
        let index = PositionIndex::new(&rules);
        let mut sets: Vec<LayerSet> = (1..=4).map(|d| LayerSet::from_diagonal(3, d)).collect();
        // Diagonals 3 and up, and (0, 2) of the diagonal below.
        let mut pairs = LayerSet::from_diagonal(3, 3).pairs().to_vec();
        pairs.push(LayerPair::new(0, 2));
        sets.push(LayerSet::from_pairs(3, pairs).unwrap());
        for (k, set) in sets.iter().enumerate() {
            let dir =
                std::env::temp_dir().join(format!("sawah-partial-{}-{k}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let checkpoints = (k % 2 == 1).then_some(dir.as_path());
            let part =
                sawah_solver::solve_layers(&rules, set, options, checkpoints, |_| {}).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            assert_eq!(part.layers.len(), set.pairs().len());
            let mut held = 0u64;
            let mut worst = 0.0f64;
            for i in 0..index.len() {
                let position = index.position(i).unwrap();
                let (light, dark) = (position.side(Player::Light), position.side(Player::Dark));
                match part.get(&position) {
                    Some(value) => {
                        held += 1;
                        worst = worst.max((value - whole.value(&position)).abs());
                    }
                    None => assert!(!set.contains(light.scored(), dark.scored())),
                }
            }
            assert_eq!(held, part.values.len() as u64, "{name} {set}");
            assert!(worst <= 1e-11, "{name} {set}: differs by {worst:e}");
            assert!(part.get(&rules.start()).is_none());
        }
    }
}

/// Past the solver's index, the late layers of a large rule set are
/// planned within a budget and hold fewer positions than it indexes.
#[test]
fn the_late_layers_of_a_rule_set_too_large_to_solve_whole_fit_a_budget() {
    let mut spec = race::preset_spec("sawah").unwrap();
    spec.name = "long".into();
    spec.pieces = 9;
    let rules = RuleSet::new(spec).unwrap();
    let whole = sawah_engine::race::PositionIndex::new(&rules).len();
    assert!(whole > 1 << 30, "{whole}");
    let layers = sawah_solver::partial::largest_layers_within(&rules, 1 << 30, true).unwrap();
    let held = sawah_engine::race::PositionIndex::of_layers(&rules, &layers).len();
    assert!(held > 0 && held < whole / 10, "{held} of {whole}");
    let needed = sawah_solver::partial::memory_needed(&rules, &layers, true).unwrap();
    assert!(needed <= 1 << 30);
    assert!(!layers.is_whole() && layers.to_string().starts_with("the layers with at least"));
}

/// A pair that does not converge within its sweeps is an error naming it,
/// not a table with a larger residual; the rule set bounds the sweeps.
#[test]
fn a_pair_short_of_the_tolerance_is_an_error() {
    let rules = race::preset("ur-2").unwrap();
    let options = SolveOptions {
        max_sweeps: 2,
        tolerance: 1e-14,
        ..SolveOptions::default()
    };
    let error = solve(&rules, options, |_| {})
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("did not converge within"), "{error}");
    assert!(sawah_solver::sweep_bound(&rules) < SolveOptions::default().max_sweeps);
    assert!(sawah_solver::sweep_bound(&race::preset("masters-5").unwrap()) > 2_000);
}
