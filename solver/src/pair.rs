//! Solving one layer pair by modified policy iteration.

use crate::extrapolation;
use crate::plan::{Layout, PolicyMemory, record_words};
use crate::policy::{BELLMAN_AHEAD, PairMoves, Policy, Rolls, bellman_parts, larger};
use crate::record::NONE;
use crate::solve::{LayerReport, SolveOptions};
use crate::sweeps::{ChoiceMargins, extrapolate, in_order, sweep, sweep_choices};
use crate::values::{Values, joint, set_first_estimates, twin};
use rayon::prelude::*;
use sawah_engine::race::{Block, LayerPair, PositionIndex, RuleSet};
use std::time::Instant;

/// How far a policy is evaluated before it is improved again: until a
/// sweep changes no value by more than this fraction of the last Bellman
/// residual (or the tolerance, once that is within [`STRAIGHT_TO_TOLERANCE`]
/// times it).
pub(crate) const EVALUATION_RATIO: f64 = 1e-3;

/// While the last Bellman residual is above [`EARLY_RESIDUAL`], the policy
/// is still far from the best, and is evaluated only to this fraction of
/// it: the next pass finds as good a policy from values ten times rougher.
/// In sawah's largest pair, evaluated to 1/100 of every residual, passes
/// 2–4 found residuals of 0.024, 0.0033 and 3.7e-4 (to 1/1000: 0.024,
/// 0.0033, 4.1e-4) and came 55 s sooner, but pass 5 then found 3.1e-6
/// instead of 3.2e-7 and the pair needed a seventh pass (docs/solver.md).
pub(crate) const EARLY_EVALUATION_RATIO: f64 = 1e-2;

/// The Bellman residual above which [`EARLY_EVALUATION_RATIO`] applies.
pub(crate) const EARLY_RESIDUAL: f64 = 1e-3;

/// When the evaluation target is within this factor of the tolerance, the
/// policy is evaluated to the tolerance itself, so that the next Bellman
/// pass can end the pair: a pass that stops a few sweeps short only to
/// write, followed by one more that checks, costs more than those sweeps
/// (sawah's largest pair: a target of 2.2e-10 cost an extra pass).
pub(crate) const STRAIGHT_TO_TOLERANCE: f64 = 10.0;

/// With several candidates per roll, how far the candidates chosen by a
/// sweep over all of them are evaluated (by sweeps that read one candidate
/// per roll) before the candidates are compared again: until a sweep
/// changes no value by more than this fraction of that sweep's change.
/// Measured on masters-5 (docs/BENCHMARKS.md): 0.1 and 0.3 alike (79 s,
/// 82 s); with 0.01 the choices go stale (30% more sweeps, 9% slower).
pub(crate) const CHOICE_RATIO: f64 = 0.1;

/// Solves one layer pair by modified policy iteration. A Bellman pass
/// generates every move of every position and records the best successor
/// per roll; cheap in-place sweeps then evaluate that policy (reading one
/// value per roll); another Bellman pass, which only reads values, improves
/// the policy and measures `max |T(V) − V|`, until that is within tolerance.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_pair(
    rules: &RuleSet,
    index: &PositionIndex,
    values: &Values,
    pair: LayerPair,
    Layout { width, choices }: Layout,
    memory: &mut PolicyMemory,
    options: SolveOptions,
    progress: &mut impl FnMut(&LayerReport),
) -> LayerReport {
    let start = Instant::now();
    let LayerPair {
        mover: a,
        opponent: b,
    } = pair;
    // Each position is updated together with its twin across a pass: for
    // a != b the twins of layer (a, b) are exactly layer (b, a); for a == b
    // both are in the layer, and the one with the smaller index does the work.
    let mut blocks = index.blocks(a, b);
    // The sweeps and passes below hand out one block at a time, in order
    // (`in_order`): rayon's default leaves a quarter of the blocks to one
    // thread, which then cannot share them (one core idle for seconds at
    // the end of a Bellman pass).
    // Sweep the furthest-along positions first, so that the successors of
    // non-capturing moves are mostly fresh from this very sweep: blocks by
    // stage, and inside a block from the end (a piece that moves on raises
    // its combination's rank).
    blocks.sort_by_key(|b| std::cmp::Reverse((b.stage(), b.start)));
    let states = index.pair_len(pair);
    let rolls = Rolls::new(rules);
    let layout = Layout { width, choices };
    // With every move recorded, sweeps apply the Bellman operator itself.
    let complete = layout.every_move(rules.pieces());
    let slots = rolls.moving.len() * width;
    // Each roll's choice is one of its candidates, the record holding the
    // others (`Layout::split`).
    let split = layout.split(rules.pieces());
    // Each twin pair's parts of the policy.
    let per_pair = layout.per_twin_pair(rolls.moving.len(), rules.pieces());
    let stride = per_pair.records;
    // Records are allocated at their exact size: one per twin pair, which
    // is every position of the block when the twins are in the mirror
    // layer, and, packed, the words its moves take.
    let packed = layout.packed(rolls.moving.len(), rules.pieces());
    let (twin_pairs, record_sizes): (Vec<usize>, Vec<usize>) = blocks
        .par_iter()
        .map(|block| {
            if a != b && !packed {
                return (block.len as usize, block.len as usize * stride);
            }
            let (mut count, mut words) = (0usize, 0usize);
            index.for_each_in_block(block, |i, position| {
                let other = twin(rules, position);
                if a == b && index.index(&other) < i {
                    return;
                }
                count += 1;
                if packed {
                    words += record_words(rules, &rolls, width, position)
                        + record_words(rules, &rolls, width, &other);
                }
            });
            (count, if packed { words } else { count * stride })
        })
        .unzip();
    let all_pairs: usize = twin_pairs.iter().sum();
    let mut policies = memory.policies(per_pair, &twin_pairs, &record_sizes);
    // After the records of the pair before were trimmed to this one's, so
    // that the two are not held at once.
    set_first_estimates(rules, index, values, &index.pair_blocks(pair));
    // New values for a twin pair; returns the larger change.
    let update = |i: u64, j: u64, parts: (f64, f64), twin_parts: (f64, f64), write: bool| {
        let (new, new_twin) = if j == i {
            // The twin is the position itself: V = A + q (1 - V).
            let v = (parts.0 + parts.1) / (1.0 + parts.1);
            (v, v)
        } else {
            joint(parts, twin_parts)
        };
        let (old, old_twin) = (values.get(i), values.get(j));
        let change = larger((new - old).abs(), (new_twin - old_twin).abs());
        if write {
            values.set(i, new);
            values.set(j, new_twin);
        }
        change
    };
    // A Bellman pass: every move of every roll; records the best ones and,
    // when it generated them, the pair's margin. `pass` numbers the passes
    // from 0; the later ones take the candidates of the pairs whose margins
    // hold (`holding`, by margin byte). Returns the largest change (or
    // residual, when it does not write) and how many twin pairs it generated.
    let improve = |policies: &mut [Policy], pass: usize, holding: &[bool; 256], write| {
        let mut items: Vec<(&Block, &mut Policy)> =
            blocks.iter().zip(policies.iter_mut()).collect();
        in_order(
            &mut items,
            |item| {
                let (block, policy) = (item.0, &mut *item.1);
                let Policy {
                    twins,
                    records,
                    lengths,
                    chosen,
                    margins,
                    ..
                } = policy;
                let mut best = vec![NONE; 2 * slots];
                // Split, each roll's candidates but the first (its choice):
                // a record's worth.
                let mut rest = vec![NONE; stride];
                let mut largest = 0.0f64;
                let mut generated = 0u64;
                let mut finish = |moves: &PairMoves,
                                  twins: &mut [u32],
                                  records: &mut [u32],
                                  chosen: &mut [u32],
                                  margins: &mut [u8]| {
                    let (mine, theirs) = best.split_at_mut(slots);
                    let (parts, gap) = bellman_parts(moves.rolls(0), values, &rolls, mine);
                    let (twin_parts, twin_gap) =
                        bellman_parts(moves.rolls(1), values, &rolls, theirs);
                    let (i, j) = (moves.i, moves.j);
                    largest = larger(largest, update(i, j, parts, twin_parts, write));
                    // Candidates taken stay as they are (only their order
                    // could change, and a sweep takes the best of them),
                    // unless split and a roll's best is no longer its
                    // choice; the twin pairs never change after the first
                    // pass.
                    let k = moves.record;
                    if pass == 0 {
                        twins[2 * k..2 * k + 2].copy_from_slice(&[i as u32, j as u32]);
                    }
                    if moves.generated
                        && let Some(margin) = margins.get_mut(k)
                    {
                        *margin = crate::margins::encode(pass, gap.min(twin_gap));
                    }
                    let choice_stride = per_pair.chosen;
                    let choices = &mut chosen[k * choice_stride..(k + 1) * choice_stride];
                    // Each roll's best candidate (first in `best`) is the
                    // choice a sweep over the candidates would make now,
                    // so the sweeps over the choices can start at once.
                    let best_first = best.chunks_exact(width).map(|slots| slots[0]);
                    // Candidates taken are rewritten only where split and a
                    // roll's best is no longer its choice.
                    let rewrite =
                        moves.generated || split && !choices.iter().copied().eq(best_first.clone());
                    if !rewrite {
                        return;
                    }
                    let record = &mut records[moves.offset..moves.offset + moves.len];
                    if split {
                        let others = best.chunks_exact(width).flat_map(|roll| &roll[1..]);
                        for (slot, &other) in rest.iter_mut().zip(others) {
                            *slot = other;
                        }
                        crate::record::write(&rest, width - 1, record);
                    } else {
                        crate::record::write(&best, width, record);
                    }
                    for (choice, best) in choices.iter_mut().zip(best_first) {
                        *choice = best;
                    }
                };
                // Twin pairs ranked and prefetched, oldest first, with the
                // number of their successors, and finished ones to reuse.
                let mut waiting = std::collections::VecDeque::new();
                let mut in_flight = 0;
                let mut spare: Vec<PairMoves> = Vec::new();
                // The next twin pair, in walking order (the records' order),
                // and where its record starts.
                let mut next = 0usize;
                let mut offset = 0usize;
                index.for_each_in_block_rev(block, |i, position| {
                    // The twin pair `position` starts, if any: in the first
                    // pass by ranking its twin (the one with the smaller
                    // index starts it); later ones walk the pairs the first
                    // recorded, in the same order.
                    let j = if pass == 0 {
                        index.index(&twin(rules, position))
                    } else {
                        match twins.get(2 * next..2 * next + 2) {
                            Some(&[first, second]) if u64::from(first) == i => u64::from(second),
                            _ => return,
                        }
                    };
                    if j < i {
                        return;
                    }
                    let mut moves = spare.pop().unwrap_or_default();
                    // The record's length: the stride, or, packed, as the
                    // first pass found it (the number of moves of a roll
                    // never changes).
                    let known_len = match lengths.get(next) {
                        None => Some(stride),
                        Some(_) if pass == 0 => None,
                        Some(&len) => Some(usize::from(len)),
                    };
                    let holds = margins.get(next).is_some_and(|&m| holding[usize::from(m)]);
                    match known_len {
                        Some(len) if holds => {
                            let record = &records[offset..offset + len];
                            let first = split.then(|| {
                                &chosen[next * per_pair.chosen..(next + 1) * per_pair.chosen]
                            });
                            moves.take_candidates(
                                values,
                                (i, j),
                                (record, first),
                                rolls.moving.len(),
                            );
                        }
                        _ => {
                            let other = twin(rules, position);
                            moves.generate(index, values, &rolls, (i, position), (j, &other));
                        }
                    }
                    let len = known_len.unwrap_or_else(|| moves.record_len(width));
                    if let Some(length) = lengths.get_mut(next) {
                        // At most 255: records are packed only then.
                        *length = len as u8;
                    }
                    generated += u64::from(moves.generated);
                    (moves.record, moves.offset, moves.len) = (next, offset, len);
                    next += 1;
                    offset += len;
                    in_flight += moves.successors.len();
                    waiting.push_back(moves);
                    while let Some(oldest) = waiting.front()
                        && in_flight - oldest.successors.len() >= BELLMAN_AHEAD
                        && let Some(moves) = waiting.pop_front()
                    {
                        in_flight -= moves.successors.len();
                        finish(&moves, twins, records, chosen, margins);
                        spare.push(moves);
                    }
                });
                for moves in waiting {
                    finish(&moves, twins, records, chosen, margins);
                }
                (largest, generated)
            },
            |x, y| (x.0.max(y.0), x.1 + y.1),
        )
    };
    // A sweep over the recorded candidates (noting the choices, if kept,
    // when it writes).
    // (`holding` and `epoch`: the choice margins that hold, and the number
    // a writing sweep records the ones it measures with.)
    let evaluate = |policies: &mut [Policy], write: bool, holding: &[bool; 256], epoch| {
        in_order(
            policies,
            |policy| {
                let chosen = (!policy.chosen.is_empty()).then_some(&mut *policy.chosen);
                let margins = (!policy.choice_margins.is_empty()).then_some(ChoiceMargins {
                    bytes: &mut *policy.choice_margins,
                    holding,
                    epoch,
                });
                sweep(
                    policy.twins,
                    policy.records,
                    (policy.lengths, stride),
                    (chosen, split),
                    margins,
                    &rolls,
                    values,
                    &update,
                    write,
                )
            },
            |x, y| (x.0.max(y.0), x.1 + y.1),
        )
    };
    // A sweep that reads only the chosen candidates.
    // (With `recording`, recording each position's change with its scale,
    // or adding it to the change recorded, `extrapolation`.)
    let evaluate_choices = |policies: &mut [Policy], recording: Option<(f64, bool)>| -> f64 {
        in_order(
            policies,
            |policy| {
                let recording = recording.map(|(scale, add)| (&mut *policy.deltas, scale, add));
                sweep_choices(
                    policy.twins,
                    policy.chosen,
                    &rolls,
                    values,
                    &update,
                    recording,
                )
            },
            f64::max,
        )
    };
    let mut report = LayerReport {
        candidates: width,
        residual: f64::INFINITY,
        ..LayerReport::empty(pair, states)
    };
    let mut note = |report: &mut LayerReport, residual: f64| {
        report.residual = residual;
        report.elapsed = start.elapsed();
        progress(report);
    };
    // The sum of every writing pass's and sweep's largest change: no value
    // has moved further than this since the pair started (what margins
    // are measured against), and its value at the start of each pass that
    // records margins.
    let mut drift = 0.0;
    let mut drift_at: Vec<f64> = Vec::new();
    let mut bellman =
        |policies: &mut [Policy], report: &mut LayerReport, drift: &mut f64, write| {
            let pass = report.bellman_passes as usize;
            if drift_at.len() <= crate::margins::LAST_PASS {
                drift_at.push(*drift);
            }
            let holding = crate::margins::holding(*drift, &drift_at);
            let (residual, generated) = improve(policies, pass, &holding, write);
            report.bellman_passes += 1;
            report.generated_passes += generated as f64 / all_pairs as f64;
            if write {
                *drift += residual;
            }
            residual
        };
    // The drift at the start of each sweep over the candidates since the
    // last Bellman pass (which changes the candidates, so that every choice
    // margin is measured anew after it).
    let mut choice_drift_at: Vec<f64> = Vec::new();
    let mut measured_after = 0;
    let mut over_candidates =
        |policies: &mut [Policy], report: &mut LayerReport, write: bool, drift: f64| {
            let passes = report.bellman_passes;
            if passes != measured_after {
                measured_after = passes;
                choice_drift_at.clear();
                policies
                    .par_iter_mut()
                    .for_each(|policy| policy.choice_margins.fill(0));
            }
            if write && choice_drift_at.len() <= crate::margins::LAST_PASS {
                choice_drift_at.push(drift);
            }
            let holding = crate::margins::holding(drift, &choice_drift_at);
            let epoch = choice_drift_at.len().saturating_sub(1);
            let (change, read_in_full) = evaluate(policies, write, &holding, epoch);
            report.sweeps += 1;
            report.read_in_full += read_in_full as f64 / all_pairs as f64;
            change
        };
    let mut residual = bellman(&mut policies, &mut report, &mut drift, true);
    note(&mut report, residual);
    // A Bellman pass notes each roll's best candidate as its choice, so
    // that, with the choices kept, it stands for the first sweep over the
    // candidates after it (one sweep over every candidate fewer per pass).
    let mut passed = choices;
    // Once the sweeps' changes since the last Bellman pass shrink by a
    // steady ratio (per sweep, or over two), the next one or two sweeps
    // over the choices record their changes, and if the ratio held, the
    // values are moved along them by the error left (`extrapolation`).
    let mut extrapolation = extrapolation::Extrapolation::new(options.extrapolate);
    while report.sweeps < options.max_sweeps {
        extrapolation.clear();
        let ratio = if residual > EARLY_RESIDUAL {
            EARLY_EVALUATION_RATIO
        } else {
            EVALUATION_RATIO
        };
        let target = residual * ratio;
        let target = if complete || target <= STRAIGHT_TO_TOLERANCE * options.tolerance {
            options.tolerance
        } else {
            target
        };
        'evaluation: while report.sweeps < options.max_sweeps {
            let change = if std::mem::take(&mut passed) {
                residual
            } else {
                let change = over_candidates(&mut policies, &mut report, true, drift);
                drift += change;
                extrapolation.note(change);
                note(&mut report, change);
                change
            };
            if change <= target {
                break;
            }
            // Sweeps over the choices just made are cheaper (one read per
            // roll); the next sweep over the candidates revises them.
            let inner = (change * CHOICE_RATIO).max(target);
            while choices && report.sweeps < options.max_sweeps {
                let change = evaluate_choices(&mut policies, extrapolation.recording());
                drift += change;
                report.sweeps += 1;
                report.choice_sweeps += 1;
                if let Some((factor, scale)) = extrapolation.after_sweep(change) {
                    drift += extrapolate(&policies, values, factor, scale);
                    report.extrapolations += 1;
                }
                note(&mut report, change);
                // Evaluated far enough: the pass below reads every
                // candidate (or move) and revises the choices, so a sweep
                // over the candidates first would only repeat it.
                if change <= target {
                    break 'evaluation;
                }
                if change <= inner {
                    break;
                }
            }
        }
        // Only a pass that reads can end the pair: one made before the
        // values were evaluated to the tolerance writes what it finds.
        let verify = target <= options.tolerance;
        residual = if complete {
            over_candidates(&mut policies, &mut report, false, drift)
        } else {
            passed = choices;
            bellman(&mut policies, &mut report, &mut drift, !verify)
        };
        note(&mut report, residual);
        if verify && residual <= options.tolerance {
            break;
        }
    }
    report.elapsed = start.elapsed();
    report
}
