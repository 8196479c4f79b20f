//! Solving one layer pair by modified policy iteration.

use crate::extrapolation;
use crate::options::{LayerReport, SolveOptions};
use crate::plan::{Layout, PolicyMemory, PolicySizes, record_words};
use crate::policy::{BELLMAN_AHEAD, PairMoves, Policy, Rolls, bellman_parts, larger};
use crate::record::NONE;
use crate::sweeps::{ChoiceMargins, extrapolate, in_order, sweep, sweep_choices};
use crate::values::{Values, joint, set_first_estimates, twin};
use rayon::prelude::*;
use sawah_engine::race::{Block, LayerPair, Position, PositionIndex, RuleSet};
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
/// Measured on masters-5 (docs/benchmarks-log.md): 0.1 and 0.3 alike (79 s,
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
    layout: Layout,
    memory: &mut PolicyMemory,
    options: SolveOptions,
    progress: &mut impl FnMut(&LayerReport),
) -> LayerReport {
    let mut solver = PairSolver::new(rules, index, values, pair, layout, options);
    let (twin_pairs, record_sizes) = solver.twin_pairs_and_record_sizes();
    solver.all_pairs = twin_pairs.iter().sum();
    let mut policies = memory.policies(solver.per_pair, &twin_pairs, &record_sizes);
    // After the records of the pair before were trimmed to this one's, so
    // that the two are not held at once.
    set_first_estimates(rules, index, values, &index.pair_blocks(pair));
    solver.run(&mut policies, progress)
}

/// One layer pair being solved: what stays fixed (the rules, the pair's
/// blocks in sweeping order, the policy's layout and sizes) and what the
/// passes and sweeps change (the report, the drift the margins are measured
/// against). The steps are its methods: a Bellman pass
/// ([`PairSolver::bellman`]), a sweep over the candidates
/// ([`PairSolver::over_candidates`]), a sweep over the choices
/// ([`PairSolver::over_choices`]) and the evaluation of a policy between
/// two Bellman passes ([`PairSolver::evaluate_policy`]).
struct PairSolver<'s> {
    rules: &'s RuleSet,
    index: &'s PositionIndex,
    values: &'s Values,
    options: SolveOptions,
    /// The pair's blocks, in the order the passes and sweeps take them.
    blocks: Vec<Block>,
    rolls: Rolls,
    layout: Layout,
    /// Whether every move is recorded: sweeps then apply the Bellman
    /// operator itself.
    complete: bool,
    /// Candidate slots per position: moving rolls times the width.
    slots: usize,
    /// Whether each roll's choice is one of its candidates, the record
    /// holding the others (`Layout::split`).
    split: bool,
    /// Each twin pair's parts of the policy.
    per_pair: PolicySizes,
    /// Twin pairs in the pair.
    all_pairs: usize,
    start: Instant,
    report: LayerReport,
    /// The sum of every writing pass's and sweep's largest change: no value
    /// has moved further than this since the pair started (what margins
    /// are measured against).
    drift: f64,
    /// The drift at the start of each pass that records margins.
    drift_at: Vec<f64>,
    /// The drift at the start of each sweep over the candidates since the
    /// last Bellman pass (which changes the candidates, so that every choice
    /// margin is measured anew after it).
    choice_drift_at: Vec<f64>,
    /// The Bellman passes made when the choice margins were last cleared.
    measured_after: u32,
}

impl<'s> PairSolver<'s> {
    fn new(
        rules: &'s RuleSet,
        index: &'s PositionIndex,
        values: &'s Values,
        pair: LayerPair,
        layout: Layout,
        options: SolveOptions,
    ) -> PairSolver<'s> {
        // Each position is updated together with its twin across a pass:
        // for a != b the twins of layer (a, b) are exactly layer (b, a); for
        // a == b both are in the layer, and the one with the smaller index
        // does the work.
        let mut blocks = index.blocks(pair.mover, pair.opponent);
        // The sweeps and passes hand out one block at a time, in order
        // (`in_order`): rayon's default leaves a quarter of the blocks to
        // one thread, which then cannot share them (one core idle for
        // seconds at the end of a Bellman pass).
        // Sweep the furthest-along positions first, so that the successors
        // of non-capturing moves are mostly fresh from this very sweep:
        // blocks by stage, and inside a block from the end (a piece that
        // moves on raises its combination's rank).
        blocks.sort_by_key(|b| std::cmp::Reverse((b.stage(), b.start)));
        let rolls = Rolls::new(rules);
        let pieces = rules.pieces();
        PairSolver {
            rules,
            index,
            values,
            options,
            blocks,
            complete: layout.every_move(pieces),
            slots: rolls.moving.len() * layout.width,
            split: layout.split(pieces),
            per_pair: layout.per_twin_pair(rolls.moving.len(), pieces),
            rolls,
            layout,
            all_pairs: 0,
            start: Instant::now(),
            report: LayerReport {
                candidates: layout.width,
                residual: f64::INFINITY,
                ..LayerReport::empty(pair, index.pair_len(pair))
            },
            drift: 0.0,
            drift_at: Vec::new(),
            choice_drift_at: Vec::new(),
            measured_after: 0,
        }
    }

    /// Each block's number of twin pairs and its records' size in words.
    /// Records are allocated at their exact size: one per twin pair, which
    /// is every position of the block when the twins are in the mirror
    /// layer, and, packed, the words its moves take.
    fn twin_pairs_and_record_sizes(&self) -> (Vec<usize>, Vec<usize>) {
        let (rules, index) = (self.rules, self.index);
        let mirror = self.report.scores.is_own_mirror();
        let stride = self.per_pair.records;
        let packed = (self.layout).packed(self.rolls.moving.len(), rules.pieces());
        self.blocks
            .par_iter()
            .map(|block| {
                if !mirror && !packed {
                    return (block.len as usize, block.len as usize * stride);
                }
                let (mut count, mut words) = (0usize, 0usize);
                index.for_each_in_block(block, |i, position| {
                    let other = twin(rules, position);
                    if mirror && index.index(&other) < i {
                        return;
                    }
                    count += 1;
                    if packed {
                        let width = self.layout.width;
                        words += record_words(rules, &self.rolls, width, position)
                            + record_words(rules, &self.rolls, width, &other);
                    }
                });
                (count, if packed { words } else { count * stride })
            })
            .unzip()
    }

    /// The whole solve: a first Bellman pass, then in turn the evaluation
    /// of the policy and a Bellman pass that improves it, until a pass that
    /// only reads finds the residual within tolerance (or the sweeps run
    /// out).
    fn run(
        mut self,
        policies: &mut [Policy],
        progress: &mut impl FnMut(&LayerReport),
    ) -> LayerReport {
        let mut residual = self.bellman(policies, true);
        self.note(residual, progress);
        // A Bellman pass notes each roll's best candidate as its choice, so
        // that, with the choices kept, it stands for the first sweep over
        // the candidates after it (one sweep over every candidate fewer per
        // pass).
        let mut passed = self.layout.choices;
        // Once the sweeps' changes since the last Bellman pass shrink by a
        // steady ratio (per sweep, or over two), the next one or two sweeps
        // over the choices record their changes, and if the ratio held, the
        // values are moved along them by the error left (`extrapolation`).
        let mut extrapolation = extrapolation::Extrapolation::new(self.options.extrapolate);
        let tolerance = self.options.tolerance;
        while self.report.sweeps < self.options.max_sweeps {
            extrapolation.clear();
            let ratio = if residual > EARLY_RESIDUAL {
                EARLY_EVALUATION_RATIO
            } else {
                EVALUATION_RATIO
            };
            let target = residual * ratio;
            let target = if self.complete || target <= STRAIGHT_TO_TOLERANCE * tolerance {
                tolerance
            } else {
                target
            };
            let evaluated = Evaluation {
                target,
                residual,
                passed: std::mem::take(&mut passed),
            };
            self.evaluate_policy(policies, evaluated, &mut extrapolation, progress);
            // Only a pass that reads can end the pair: one made before the
            // values were evaluated to the tolerance writes what it finds.
            let verify = target <= tolerance;
            residual = if self.complete {
                self.over_candidates(policies, false)
            } else {
                passed = self.layout.choices;
                self.bellman(policies, !verify)
            };
            self.note(residual, progress);
            if verify && residual <= tolerance {
                break;
            }
        }
        self.report.elapsed = self.start.elapsed();
        self.report
    }

    /// Evaluates the policy the last Bellman pass recorded: sweeps over the
    /// candidates, each followed (with the choices kept) by cheaper sweeps
    /// over the choices it made, until a sweep changes no value by more
    /// than the target.
    fn evaluate_policy(
        &mut self,
        policies: &mut [Policy],
        Evaluation {
            target,
            residual,
            mut passed,
        }: Evaluation,
        extrapolation: &mut extrapolation::Extrapolation,
        progress: &mut impl FnMut(&LayerReport),
    ) {
        let max_sweeps = self.options.max_sweeps;
        while self.report.sweeps < max_sweeps {
            let change = if std::mem::take(&mut passed) {
                residual
            } else {
                let change = self.over_candidates(policies, true);
                self.drift += change;
                extrapolation.note(change);
                self.note(change, progress);
                change
            };
            if change <= target {
                return;
            }
            // Sweeps over the choices just made are cheaper (one read per
            // roll); the next sweep over the candidates revises them.
            let inner = (change * CHOICE_RATIO).max(target);
            while self.layout.choices && self.report.sweeps < max_sweeps {
                let change = self.over_choices(policies, extrapolation.recording());
                self.drift += change;
                self.report.sweeps += 1;
                self.report.choice_sweeps += 1;
                if let Some((factor, scale)) = extrapolation.after_sweep(change) {
                    self.drift += extrapolate(policies, self.values, factor, scale);
                    self.report.extrapolations += 1;
                }
                self.note(change, progress);
                // Evaluated far enough: the pass after this reads every
                // candidate (or move) and revises the choices, so a sweep
                // over the candidates first would only repeat it.
                if change <= target {
                    return;
                }
                if change <= inner {
                    break;
                }
            }
        }
    }

    /// Reports progress: the last residual or change, and the time so far.
    fn note(&mut self, residual: f64, progress: &mut impl FnMut(&LayerReport)) {
        self.report.residual = residual;
        self.report.elapsed = self.start.elapsed();
        progress(&self.report);
    }

    /// New values for a twin pair, written when `write`; returns the larger
    /// change.
    #[inline(always)]
    fn update(
        &self,
        i: u64,
        j: u64,
        parts: (f64, f64),
        twin_parts: (f64, f64),
        write: bool,
    ) -> f64 {
        let values = self.values;
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
    }

    /// A Bellman pass, with the drift noted for the margins; returns the
    /// largest change (or residual, when it does not write).
    fn bellman(&mut self, policies: &mut [Policy], write: bool) -> f64 {
        let pass = self.report.bellman_passes as usize;
        if self.drift_at.len() <= crate::margins::LAST_PASS {
            self.drift_at.push(self.drift);
        }
        let holding = crate::margins::holding(self.drift, &self.drift_at);
        let (residual, generated) = self.bellman_pass(policies, pass, &holding, write);
        self.report.bellman_passes += 1;
        self.report.generated_passes += generated as f64 / self.all_pairs as f64;
        if write {
            self.drift += residual;
        }
        residual
    }

    /// A sweep over the recorded candidates (noting the choices, if kept,
    /// when it writes), with the choice margins measured against the drift;
    /// returns the largest change.
    fn over_candidates(&mut self, policies: &mut [Policy], write: bool) -> f64 {
        let passes = self.report.bellman_passes;
        if passes != self.measured_after {
            self.measured_after = passes;
            self.choice_drift_at.clear();
            policies
                .par_iter_mut()
                .for_each(|policy| policy.choice_margins.fill(0));
        }
        if write && self.choice_drift_at.len() <= crate::margins::LAST_PASS {
            self.choice_drift_at.push(self.drift);
        }
        let holding = crate::margins::holding(self.drift, &self.choice_drift_at);
        let epoch = self.choice_drift_at.len().saturating_sub(1);
        let (change, read_in_full) = self.sweep_candidates(policies, write, &holding, epoch);
        self.report.sweeps += 1;
        self.report.read_in_full += read_in_full as f64 / self.all_pairs as f64;
        change
    }

    /// A sweep over the recorded candidates (noting the choices, if kept,
    /// when it writes). `holding` and `epoch`: the choice margins that hold,
    /// and the number a writing sweep records the ones it measures with.
    /// Returns the largest change and how many twin pairs it read in full.
    fn sweep_candidates(
        &self,
        policies: &mut [Policy],
        write: bool,
        holding: &[bool; 256],
        epoch: usize,
    ) -> (f64, u64) {
        let update = |i, j, parts, twin_parts, write| self.update(i, j, parts, twin_parts, write);
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
                    (policy.lengths, self.per_pair.records),
                    (chosen, self.split),
                    margins,
                    &self.rolls,
                    self.values,
                    &update,
                    write,
                )
            },
            |x, y| (x.0.max(y.0), x.1 + y.1),
        )
    }

    /// A sweep that reads only the chosen candidates; with `recording`,
    /// recording each position's change with its scale, or adding it to
    /// the change recorded (`extrapolation`). Returns the largest change.
    fn over_choices(&self, policies: &mut [Policy], recording: Option<(f64, bool)>) -> f64 {
        let update = |i, j, parts, twin_parts, write| self.update(i, j, parts, twin_parts, write);
        in_order(
            policies,
            |policy| {
                let recording = recording.map(|(scale, add)| (&mut *policy.deltas, scale, add));
                sweep_choices(
                    policy.twins,
                    policy.chosen,
                    &self.rolls,
                    self.values,
                    &update,
                    recording,
                )
            },
            f64::max,
        )
    }

    /// A Bellman pass: every move of every roll; records the best ones and,
    /// when it generated them, the pair's margin. `pass` numbers the passes
    /// from 0; the later ones take the candidates of the pairs whose margins
    /// hold (`holding`, by margin byte). Returns the largest change (or
    /// residual, when it does not write) and how many twin pairs it
    /// generated.
    fn bellman_pass(
        &self,
        policies: &mut [Policy],
        pass: usize,
        holding: &[bool; 256],
        write: bool,
    ) -> (f64, u64) {
        let mut items: Vec<(&Block, &mut Policy)> =
            self.blocks.iter().zip(policies.iter_mut()).collect();
        in_order(
            &mut items,
            |(block, policy)| self.bellman_block(block, policy, pass, holding, write),
            |x, y| (x.0.max(y.0), x.1 + y.1),
        )
    }

    /// A Bellman pass over one block and its policy (see
    /// [`PairSolver::bellman_pass`]).
    fn bellman_block(
        &self,
        block: &Block,
        policy: &mut Policy,
        pass: usize,
        holding: &[bool; 256],
        write: bool,
    ) -> (f64, u64) {
        let mut best = BestMoves {
            best: vec![NONE; 2 * self.slots],
            rest: vec![NONE; self.per_pair.records],
        };
        let mut largest = 0.0f64;
        let mut generated = 0u64;
        // Twin pairs ranked and prefetched, oldest first, with the number of
        // their successors, and finished ones to reuse.
        let mut waiting = std::collections::VecDeque::new();
        let mut in_flight = 0;
        let mut spare: Vec<PairMoves> = Vec::new();
        // The next twin pair, in walking order (the records' order), and
        // where its record starts.
        let mut next = 0usize;
        let mut offset = 0usize;
        self.index.for_each_in_block_rev(block, |i, position| {
            // The twin pair `position` starts, if any: in the first pass by
            // ranking its twin (the one with the smaller index starts it);
            // later ones walk the pairs the first recorded, in the same
            // order.
            let j = if pass == 0 {
                self.index.index(&twin(self.rules, position))
            } else {
                match policy.twins.get(2 * next..2 * next + 2) {
                    Some(&[first, second]) if u64::from(first) == i => u64::from(second),
                    _ => return,
                }
            };
            if j < i {
                return;
            }
            let mut moves = spare.pop().unwrap_or_default();
            let place = RecordPlace { next, offset };
            let len = self.read_moves(&mut moves, policy, place, (i, j), position, pass, holding);
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
                let change = self.finish_twin_pair(&moves, &mut best, policy, pass, write);
                largest = larger(largest, change);
                spare.push(moves);
            }
        });
        for moves in waiting {
            let change = self.finish_twin_pair(&moves, &mut best, policy, pass, write);
            largest = larger(largest, change);
        }
        (largest, generated)
    }

    /// The moves of twin pair `(i, j)` (number `place.next` of its block,
    /// `position` being `i`) for a Bellman pass: its recorded candidates,
    /// when its margin holds, or else every move, generated. Returns its
    /// record's length: the stride, or, packed, as the first pass found it
    /// (the number of moves of a roll never changes).
    #[allow(clippy::too_many_arguments)]
    fn read_moves(
        &self,
        moves: &mut PairMoves,
        policy: &mut Policy,
        RecordPlace { next, offset }: RecordPlace,
        (i, j): (u64, u64),
        position: &Position,
        pass: usize,
        holding: &[bool; 256],
    ) -> usize {
        let stride = self.per_pair.records;
        let known_len = match policy.lengths.get(next) {
            None => Some(stride),
            Some(_) if pass == 0 => None,
            Some(&len) => Some(usize::from(len)),
        };
        let holds = (policy.margins.get(next)).is_some_and(|&m| holding[usize::from(m)]);
        match known_len {
            Some(len) if holds => {
                let record = &policy.records[offset..offset + len];
                let chosen = self.per_pair.chosen;
                let first =
                    (self.split).then(|| &policy.chosen[next * chosen..(next + 1) * chosen]);
                let moving = self.rolls.moving.len();
                moves.take_candidates(self.values, (i, j), (record, first), moving);
            }
            _ => {
                let other = twin(self.rules, position);
                let (index, values) = (self.index, self.values);
                moves.generate(index, values, &self.rolls, (i, position), (j, &other));
            }
        }
        let len = known_len.unwrap_or_else(|| moves.record_len(self.layout.width));
        if let Some(length) = policy.lengths.get_mut(next) {
            // At most 255: records are packed only then.
            *length = len as u8;
        }
        len
    }

    /// Finishes a twin pair of a Bellman pass: its new values (written when
    /// `write`), its margin when its moves were generated, and its record
    /// and choices rewritten where the best candidates changed. Returns the
    /// larger change of its two values.
    fn finish_twin_pair(
        &self,
        moves: &PairMoves,
        BestMoves { best, rest }: &mut BestMoves,
        policy: &mut Policy,
        pass: usize,
        write: bool,
    ) -> f64 {
        let (values, rolls, width) = (self.values, &self.rolls, self.layout.width);
        let (mine, theirs) = best.split_at_mut(self.slots);
        let (parts, gap) = bellman_parts(moves.rolls(0), values, rolls, mine);
        let (twin_parts, twin_gap) = bellman_parts(moves.rolls(1), values, rolls, theirs);
        let (i, j) = (moves.i, moves.j);
        let change = self.update(i, j, parts, twin_parts, write);
        // Candidates taken stay as they are (only their order could change,
        // and a sweep takes the best of them), unless split and a roll's
        // best is no longer its choice; the twin pairs never change after
        // the first pass.
        let k = moves.record;
        if pass == 0 {
            policy.twins[2 * k..2 * k + 2].copy_from_slice(&[i as u32, j as u32]);
        }
        if moves.generated
            && let Some(margin) = policy.margins.get_mut(k)
        {
            *margin = crate::margins::encode(pass, gap.min(twin_gap));
        }
        let choice_stride = self.per_pair.chosen;
        let choices = &mut policy.chosen[k * choice_stride..(k + 1) * choice_stride];
        // Each roll's best candidate (first in `best`) is the choice a sweep
        // over the candidates would make now, so the sweeps over the choices
        // can start at once.
        let best_first = best.chunks_exact(width).map(|slots| slots[0]);
        // Candidates taken are rewritten only where split and a roll's best
        // is no longer its choice.
        let rewrite =
            moves.generated || self.split && !choices.iter().copied().eq(best_first.clone());
        if !rewrite {
            return change;
        }
        let record = &mut policy.records[moves.offset..moves.offset + moves.len];
        if self.split {
            let others = best.chunks_exact(width).flat_map(|roll| &roll[1..]);
            for (slot, &other) in rest.iter_mut().zip(others) {
                *slot = other;
            }
            crate::record::write(rest, width - 1, record);
        } else {
            crate::record::write(best, width, record);
        }
        for (choice, best) in choices.iter_mut().zip(best_first) {
            *choice = best;
        }
        change
    }
}

/// Where the evaluation of a policy starts: the change that ends it, the
/// residual of the Bellman pass before, and whether that pass stands for
/// the first sweep over the candidates.
struct Evaluation {
    target: f64,
    residual: f64,
    passed: bool,
}

/// A twin pair's place in its block: its number and where its record
/// starts in the block's records.
#[derive(Clone, Copy)]
struct RecordPlace {
    next: usize,
    offset: usize,
}

/// A Bellman pass's room for one twin pair's best moves: each roll's best
/// candidates, both positions' (`best`), and, split, each roll's candidates
/// but the first (its choice): a record's worth (`rest`).
struct BestMoves {
    best: Vec<u32>,
    rest: Vec<u32>,
}
