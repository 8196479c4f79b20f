//! Sweeps over a layer pair: in-place evaluation of the recorded policy
//! (over every candidate, or over the chosen ones), extrapolation, and the
//! ordered parallel walk over blocks.

use crate::extrapolation;
use crate::policy::{Policy, Rolls, choice_parts, larger, policy_parts, split_parts};
use crate::record::{INDEX, NONE};
use crate::values::Values;
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// Each twin pair's *choice margin* in a sweep over the candidates, when
/// the choices are kept: the smallest gap between a roll's chosen
/// candidate and the next best, as `margins` encodes it. While the values
/// have drifted by less than half of it since it was measured, the choices
/// are still the best candidates (the argument of `margins`, with the
/// runner-up in place of the best move left out), so the sweep reads only
/// the chosen candidate of such a pair's rolls: a sweep over every
/// candidate then costs little more than one over the choices once they
/// settle, and still computes `max |T(V) − V|` over every candidate.
pub(crate) struct ChoiceMargins<'a> {
    /// One byte per twin pair (0 after a Bellman pass: none measured).
    pub(crate) bytes: &'a mut [u8],
    /// Which bytes hold now (`margins::holding`).
    pub(crate) holding: &'a [bool; 256],
    /// The number this sweep records its margins with.
    pub(crate) epoch: usize,
}

impl ChoiceMargins<'_> {
    /// Whether twin pair `k`'s choices are still its best candidates.
    #[inline]
    pub(crate) fn hold(&self, k: usize) -> bool {
        self.bytes
            .get(k)
            .is_some_and(|&byte| self.holding[usize::from(byte)])
    }
}

/// An in-place sweep over the twin pairs `twins` (`[i, j]` each) and their
/// policy records (`[candidates of i…, candidates of j…]`, `Policy`'s
/// layout: packed, with each pair's length in `lengths`, or at `stride`
/// when `lengths` is empty). With `chosen` (each roll's choice, one candidate
/// per roll, for the cheaper sweeps that follow), a writing sweep also
/// writes each roll's choice there; with `margins` as well, a pair whose
/// choice margin holds is read from its choices alone, and a writing sweep
/// measures the others' margins anew. `update` sets a twin pair's new
/// values when `write`, and returns the larger change; the sweep returns
/// the largest, and how many twin pairs it read over every candidate.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sweep(
    twins: &[u32],
    records: &mut [u32],
    (lengths, stride): (&[u8], usize),
    (chosen, split): (Option<&mut [u32]>, bool),
    mut margins: Option<ChoiceMargins>,
    rolls: &Rolls,
    values: &Values,
    update: &impl Fn(u64, u64, (f64, f64), (f64, f64), bool) -> f64,
    write: bool,
) -> (f64, u64) {
    let moving_rolls = rolls.moving.len();
    let choice_stride = 2 * moving_rolls;
    let mut read_in_full = 0u64;
    let held = |margins: &Option<ChoiceMargins>, k| margins.as_ref().is_some_and(|m| m.hold(k));
    let mut chosen = chosen;
    let mut largest = 0.0f64;
    // Twin pair `k`'s record length, and where the records of this pair
    // and of the one `PREFETCH_AHEAD` on start.
    let len = |k: usize| lengths.get(k).map_or(stride, |&len| usize::from(len));
    let mut at = 0;
    let mut ahead_at: usize = (0..PREFETCH_AHEAD.min(twins.len() / 2)).map(len).sum();
    for (k, pair) in twins.chunks_exact(2).enumerate() {
        // Ask for the values of a pair a few ahead: from its choices alone
        // when its choice margin holds.
        let ahead = k + PREFETCH_AHEAD;
        if let Some(upcoming_pair) = twins.get(2 * ahead..2 * ahead + 2) {
            let ahead_len = len(ahead);
            let upcoming_choices = chosen
                .as_deref()
                .and_then(|c| c.get(ahead * choice_stride..(ahead + 1) * choice_stride));
            let upcoming_record = records.get(ahead_at..ahead_at + ahead_len);
            let held_ahead = held(&margins, ahead);
            // The choices, when the pair will be read from them alone or
            // they are its first candidates; its record, unless held.
            let (first, rest) = (
                upcoming_choices.filter(|_| held_ahead || split),
                upcoming_record.filter(|_| !held_ahead),
            );
            ahead_at += ahead_len;
            prefetch_pair(values, upcoming_pair, first.unwrap_or(&[]));
            prefetch_successors(values, rest.unwrap_or(&[]));
        }
        let record = &mut records[at..at + len(k)];
        at += record.len();
        let (i, j) = (u64::from(pair[0]), u64::from(pair[1]));
        let choice = chosen
            .as_deref_mut()
            .map(|c| &mut c[k * choice_stride..(k + 1) * choice_stride]);
        // Both positions' parts, and, when read over every candidate, the
        // smaller of their gaps (the twin pair's choice margin).
        let (parts, twin_parts, gap) = match choice {
            Some(choice) if held(&margins, k) => {
                let (mine, theirs) = choice.split_at(moving_rolls);
                (
                    choice_parts(mine, rolls, values),
                    choice_parts(theirs, rolls, values),
                    None,
                )
            }
            Some(choice) if split => {
                let (mine, theirs) = choice.split_at_mut(moving_rolls);
                let (parts, gap, used) = split_parts(mine, record, rolls, values, write);
                let (twin_parts, twin_gap, _) =
                    split_parts(theirs, &mut record[used..], rolls, values, write);
                (parts, twin_parts, Some(gap.min(twin_gap)))
            }
            choice => {
                let (mine, theirs) = match choice.filter(|_| write) {
                    Some(choice) => {
                        let (mine, theirs) = choice.split_at_mut(moving_rolls);
                        (Some(mine), Some(theirs))
                    }
                    None => (None, None),
                };
                let (parts, gap, used) = policy_parts(record, rolls, values, mine);
                let (twin_parts, twin_gap, _) =
                    policy_parts(&record[used..], rolls, values, theirs);
                (parts, twin_parts, Some(gap.min(twin_gap)))
            }
        };
        if let Some(gap) = gap {
            read_in_full += 1;
            if write && let Some(margins) = margins.as_mut() {
                margins.bytes[k] = crate::margins::encode(margins.epoch, gap);
            }
        }
        largest = larger(largest, update(i, j, parts, twin_parts, write));
    }
    (largest, read_in_full)
}

/// An in-place sweep over the twin pairs `twins` (`[i, j]` each) that reads
/// only each roll's chosen candidate (`chosen`: `[choices of i…, choices
/// of j…]`, one successor per moving roll, `NONE` for a roll that passes);
/// returns the largest change. The cheap sweep most sweeps are. With
/// `recording` (the changes, the scale, and whether to add to them),
/// also writes each position's change there (`extrapolation::encode` with
/// the scale given), or adds it to the change recorded there by the sweep
/// before.
pub(crate) fn sweep_choices(
    twins: &[u32],
    chosen: &[u32],
    rolls: &Rolls,
    values: &Values,
    update: &impl Fn(u64, u64, (f64, f64), (f64, f64), bool) -> f64,
    mut recording: Option<(&mut [u8], f64, bool)>,
) -> f64 {
    let moving_rolls = rolls.moving.len();
    let parts_of = |choices: &[u32]| choice_parts(choices, rolls, values);
    let stride = 2 * moving_rolls;
    let mut largest = 0.0f64;
    for (k, (pair, record)) in twins
        .chunks_exact(2)
        .zip(chosen.chunks_exact(stride))
        .enumerate()
    {
        let ahead = k + PREFETCH_AHEAD;
        if let (Some(upcoming_pair), Some(upcoming)) = (
            twins.get(2 * ahead..2 * ahead + 2),
            chosen.get(ahead * stride..(ahead + 1) * stride),
        ) {
            prefetch_pair(values, upcoming_pair, upcoming);
        }
        let (i, j) = (u64::from(pair[0]), u64::from(pair[1]));
        let (mine, theirs) = record.split_at(moving_rolls);
        let before = recording.is_some().then(|| (values.get(i), values.get(j)));
        largest = larger(
            largest,
            update(i, j, parts_of(mine), parts_of(theirs), true),
        );
        if let (Some((deltas, scale, add)), Some((old, old_twin))) = (recording.as_mut(), before) {
            for (delta, change) in deltas[2 * k..2 * k + 2]
                .iter_mut()
                .zip([values.get(i) - old, values.get(j) - old_twin])
            {
                let earlier = if *add {
                    extrapolation::decode(*delta, *scale)
                } else {
                    0.0
                };
                *delta = extrapolation::encode(earlier + change, *scale);
            }
        }
    }
    largest
}

/// Moves every position of `policies` by `factor` times the change its
/// last recording sweeps over the choices made (recorded with `scale`);
/// returns the largest move.
pub(crate) fn extrapolate(policies: &[Policy], values: &Values, factor: f64, scale: f64) -> f64 {
    policies
        .par_iter()
        .with_max_len(1)
        .map(|policy| {
            let mut largest = 0.0f64;
            for (pair, deltas) in policy
                .twins
                .chunks_exact(2)
                .zip(policy.deltas.chunks_exact(2))
            {
                // A position that is its own twin changed once.
                let count = if pair[0] == pair[1] { 1 } else { 2 };
                for (&position, &delta) in pair.iter().zip(deltas).take(count) {
                    let (position, change) = (
                        u64::from(position),
                        factor * extrapolation::decode(delta, scale),
                    );
                    values.set(position, values.get(position) + change);
                    largest = largest.max(change.abs());
                }
            }
            largest
        })
        .reduce(|| 0.0, f64::max)
}

/// Runs `work` on each of `items` on every thread of the pool, handing the
/// items out in order from one counter, and folds the results with
/// `combine` (from `R::default()`). The blocks of an in-place sweep are in
/// an order where each reads mostly values the blocks before it have just
/// written: handed out in order, the two threads sweep neighbouring blocks
/// and read little that is stale. With rayon's splitting (even one item per
/// task) the second thread takes the later half of the blocks from the
/// start, and reads the values of the first half before this sweep
/// reaches them (masters-5: 858 sweeps on two threads, 714 on one).
pub(crate) fn in_order<T: Send, R: Send + Default>(
    items: &mut [T],
    work: impl Fn(&mut T) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> R {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let cells: Vec<std::sync::Mutex<&mut T>> =
        items.iter_mut().map(std::sync::Mutex::new).collect();
    rayon::broadcast(|_| {
        let mut result = R::default();
        while let Some(cell) = cells.get(next.fetch_add(1, Ordering::Relaxed)) {
            // Each item is taken once, so the lock is never contended.
            let mut item = cell
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            result = combine(result, work(&mut item));
        }
        result
    })
    .into_iter()
    .fold(R::default(), &combine)
}

/// How many records ahead a sweep prefetches the values it will read.
pub(crate) const PREFETCH_AHEAD: usize = 8;

/// Asks for the values a sweep will read for a twin pair (`[i, j]`) and
/// the successors it will look at (`NONE` slots skipped): the values are
/// read at random over the whole array, and asking a few pairs ahead lets
/// their cache misses overlap.
#[inline(always)]
pub(crate) fn prefetch_pair(values: &Values, pair: &[u32], successors: &[u32]) {
    values.prefetch(u64::from(pair[0]));
    values.prefetch(u64::from(pair[1]));
    prefetch_successors(values, successors);
}

/// Asks for the values of `successors` (`NONE` slots skipped).
#[inline(always)]
pub(crate) fn prefetch_successors(values: &Values, successors: &[u32]) {
    for &successor in successors.iter().filter(|&&s| s != NONE) {
        values.prefetch(u64::from(successor & INDEX));
    }
}
