//! Policies: the rolls, the records of each twin pair's candidate
//! successors, and the Bellman parts of a position (its value by every move
//! or by the recorded candidates).

use crate::record::{INDEX, LAST, NONE, SAME};
use crate::values::Values;
use sawah_engine::race::{MAX_PIECES, Position, PositionIndex, RuleSet};

/// The dice as the sweeps see them: the rolls that can move (a roll of 0
/// never moves) with their probabilities, and the probability of the rest.
pub(crate) struct Rolls {
    pub(crate) moving: Vec<(u8, f64)>,
    pub(crate) still: f64,
}

impl Rolls {
    pub(crate) fn new(rules: &RuleSet) -> Rolls {
        Rolls {
            moving: rules
                .dice()
                .outcomes()
                .filter(|&(roll, _)| roll > 0)
                .collect(),
            still: rules
                .dice()
                .outcomes()
                .filter(|&(roll, _)| roll == 0)
                .map(|(_, p)| p)
                .sum(),
        }
    }
}

/// The moves a layer pair's sweeps consider, one block of the index each:
/// per twin pair `(i, j)` (a position and its twin across a pass; equal
/// when the twin is the position itself) the pair in `twins` and a
/// record `[candidates of i…, candidates of j…]` in `records`, where a
/// position's candidates are, per moving roll, its `width` best successors
/// at the last Bellman pass, best first (`crate::record`: an index, `|
/// SAME` for an extra roll, the roll's last marked; a single `NONE` for a
/// roll that passes). Records of every move are packed, one after the
/// other, with each twin pair's length in `lengths`; others sit at a fixed
/// stride (`2 × rolls × width` words), or, split (`Layout::split`), hold
/// each roll's candidates but its choice, which is in `chosen` (`2 ×
/// rolls × (width − 1)` words). Finished positions (wins and
/// losses) are in the index with fixed values, so a bear-off or a winning
/// move is a successor like any other.
///
/// A block's twins, records and choices are its parts of three
/// allocations made once per layer pair: with one small allocation per
/// block, the allocator kept the freed memory of earlier pairs and the
/// 7-piece solves peaked 0.8 GB above the budget. The twins are apart from
/// the records so that the choices, which need them too, do not repeat
/// them (4 bytes per position: what lets sawah's largest pair keep its
/// choices).
pub(crate) struct Policy<'a> {
    pub(crate) twins: &'a mut [u32],
    pub(crate) records: &'a mut [u32],
    /// With packed records, each twin pair's record length in words;
    /// empty when the records sit at a fixed stride.
    pub(crate) lengths: &'a mut [u8],
    /// With more than one candidate per roll (when memory allows), the
    /// candidate each roll took at the last sweep over the candidates:
    /// records of one candidate per roll (split, one of the roll's
    /// candidates, not repeated in `records`); empty otherwise.
    pub(crate) chosen: &'a mut [u32],
    /// With fewer candidates than every move, each twin pair's margin
    /// (`margins`): whether the next Bellman pass can take its candidates
    /// instead of generating its moves; empty otherwise.
    pub(crate) margins: &'a mut [u8],
    /// With the choices kept, each twin pair's choice margin
    /// (`ChoiceMargins`); empty otherwise.
    pub(crate) choice_margins: &'a mut [u8],
    /// With the choices kept, each position's change in the last sweep over
    /// the choices that recorded them (`extrapolation::encode`, `i` then
    /// `j`); empty otherwise.
    pub(crate) deltas: &'a mut [u8],
}

/// `data` cut into consecutive parts of `counts[k] * stride` elements.
pub(crate) fn split_into<'a, T>(
    mut data: &'a mut [T],
    counts: &[usize],
    stride: usize,
) -> Vec<&'a mut [T]> {
    counts
        .iter()
        .map(|&count| {
            let (part, rest) = std::mem::take(&mut data).split_at_mut(count * stride);
            data = rest;
            part
        })
        .collect()
}

/// The larger of two values, neither of them NaN (values, changes and
/// gaps never are): one `maxsd`, where `f64::max`, which also handles NaN,
/// takes three instructions more, in the sweeps' innermost loops.
#[inline(always)]
pub(crate) fn larger(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// The smaller of two values, neither of them NaN (see [`larger`]).
#[inline(always)]
pub(crate) fn smaller(a: f64, b: f64) -> f64 {
    if a < b { a } else { b }
}

/// The value a recorded successor is worth to the mover.
#[inline]
pub(crate) fn successor_value(values: &Values, successor: u32) -> f64 {
    let v = values.get(u64::from(successor & INDEX));
    if successor & SAME != 0 { v } else { 1.0 - v }
}

/// `(A, q)` of a position from its recorded candidates (the start of
/// `record`, `crate::record`'s layout): `A` the probability-weighted value
/// of the best candidate of every roll that moves, `q` the probability of
/// passing; the smallest gap, over the rolls, between the best candidate
/// and the next (infinite when no roll has two); and the words its rolls
/// took.
///
/// With `chosen`, writes each roll's best candidate there (`NONE` for a
/// roll that passes).
#[inline]
pub(crate) fn policy_parts(
    record: &[u32],
    rolls: &Rolls,
    values: &Values,
    mut chosen: Option<&mut [u32]>,
) -> ((f64, f64), f64, usize) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    let mut gap = f64::INFINITY;
    let mut at = 0;
    for (roll, &(_, p)) in rolls.moving.iter().enumerate() {
        let first = record[at];
        if first == NONE {
            at += 1;
            passing += p;
            if let Some(chosen) = chosen.as_deref_mut() {
                chosen[roll] = NONE;
            }
            continue;
        }
        let mut best = f64::NEG_INFINITY;
        let mut next = f64::NEG_INFINITY;
        let mut choice = first;
        loop {
            let successor = record[at];
            at += 1;
            let value = successor_value(values, successor);
            // Branch-free: the values come in no order, and a branch on
            // them is mispredicted about half the time.
            next = larger(next, smaller(value, best));
            if value > best {
                best = value;
                choice = successor;
            }
            if successor & LAST != 0 {
                break;
            }
        }
        if let Some(chosen) = chosen.as_deref_mut() {
            chosen[roll] = choice;
        }
        gap = smaller(gap, best - next);
        moving += p * best;
    }
    ((moving, passing), gap, at)
}

/// [`policy_parts`] for a split record (`Layout::split`): each roll's
/// choice in `chosen` (`NONE` for a roll that passes), its other
/// candidates in `record`. With `write`, a better candidate found in the
/// record is swapped with the choice (the mark of the roll's last
/// candidate stays where it is).
#[inline]
pub(crate) fn split_parts(
    chosen: &mut [u32],
    record: &mut [u32],
    rolls: &Rolls,
    values: &Values,
    write: bool,
) -> ((f64, f64), f64, usize) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    let mut gap = f64::INFINITY;
    let mut at = 0;
    for (choice, &(_, p)) in chosen.iter_mut().zip(&rolls.moving) {
        if *choice == NONE {
            // The roll passes: its record is one `NONE`.
            at += 1;
            passing += p;
            continue;
        }
        let mut best = successor_value(values, *choice);
        let mut next = f64::NEG_INFINITY;
        // Where in the record a better candidate is, if any.
        let mut better = usize::MAX;
        if record[at] == NONE {
            at += 1;
        } else {
            loop {
                let successor = record[at];
                let value = successor_value(values, successor);
                next = larger(next, smaller(value, best));
                if value > best {
                    best = value;
                    better = at;
                }
                at += 1;
                if successor & LAST != 0 {
                    break;
                }
            }
        }
        if write && better != usize::MAX {
            let found = record[better];
            record[better] = *choice | found & LAST;
            *choice = found & !LAST;
        }
        gap = smaller(gap, best - next);
        moving += p * best;
    }
    ((moving, passing), gap, at)
}

/// `(A, q)` of a position from each roll's chosen candidate (`choices`, one
/// per moving roll, `NONE` for a roll that passes): what [`policy_parts`]
/// gives with one candidate per roll, without looking for a best.
#[inline]
pub(crate) fn choice_parts(choices: &[u32], rolls: &Rolls, values: &Values) -> (f64, f64) {
    let mut moving = 0.0;
    let mut passing = rolls.still;
    for (&successor, &(_, p)) in choices.iter().zip(&rolls.moving) {
        if successor == NONE {
            passing += p;
        } else {
            moving += p * successor_value(values, successor);
        }
    }
    (moving, passing)
}

/// Every move of a twin pair in a Bellman pass, ranked and waiting for
/// its values: a pass ranks a few twin pairs ahead of the one it evaluates
/// and prefetches their successors' values, so that the cache misses of
/// several pairs overlap instead of coming one at a time. Or, for a pair
/// whose margin holds (`margins`), its recorded candidates, which then
/// stand for every move.
#[derive(Default)]
pub(crate) struct PairMoves {
    pub(crate) i: u64,
    pub(crate) j: u64,
    /// The twin pair's number in its block.
    pub(crate) record: usize,
    /// Where its record starts in the block's records, and its length in
    /// words.
    pub(crate) offset: usize,
    pub(crate) len: usize,
    /// Whether every move was generated (and the pair's margin can be
    /// measured), rather than the candidates taken.
    pub(crate) generated: bool,
    /// The successors of `i`, then those of `j`, roll by roll (an index,
    /// `| SAME` for an extra roll).
    pub(crate) successors: Vec<u32>,
    /// Where each roll's successors start in `successors`, `i`'s moving
    /// rolls then `j`'s, and where the last one ends.
    pub(crate) bounds: Vec<usize>,
}

impl PairMoves {
    /// Empties the moves for the twin pair `(i, j)`.
    pub(crate) fn start(&mut self, (i, j): (u64, u64), generated: bool) {
        (self.i, self.j, self.generated) = (i, j, generated);
        self.successors.clear();
        self.bounds.clear();
        self.bounds.push(0);
    }

    /// Generates and ranks every move of `position` (index `i`) and of its
    /// twin `other` (index `j`), and prefetches their successors' values.
    pub(crate) fn generate(
        &mut self,
        index: &PositionIndex,
        values: &Values,
        rolls: &Rolls,
        (i, position): (u64, &Position),
        (j, other): (u64, &Position),
    ) {
        self.start((i, j), true);
        for position in [position, other] {
            let successors = index.successors(position);
            for &(roll, _) in &rolls.moving {
                successors.for_roll(roll, |successor, extra_roll| {
                    values.prefetch(successor);
                    self.successors
                        .push(successor as u32 | if extra_roll { SAME } else { 0 });
                });
                self.bounds.push(self.successors.len());
            }
        }
    }

    /// Takes the twin pair `(i, j)`'s recorded candidates (`record`, both
    /// positions' `moving_rolls` rolls, and, split, each roll's choice in
    /// `first`) as its moves, and prefetches their values.
    pub(crate) fn take_candidates(
        &mut self,
        values: &Values,
        (i, j): (u64, u64),
        (record, first): (&[u32], Option<&[u32]>),
        moving_rolls: usize,
    ) {
        self.start((i, j), false);
        let mut firsts = first.unwrap_or(&[]).iter();
        crate::record::read(record, 2 * moving_rolls, |roll| {
            if let Some(&chosen) = firsts.next()
                && chosen != NONE
            {
                values.prefetch(u64::from(chosen & INDEX));
                self.successors.push(chosen);
            }
            for &successor in roll {
                values.prefetch(u64::from(successor & INDEX));
                // Ranked again by the pass, which marks the last anew.
                self.successors.push(successor & !LAST);
            }
            self.bounds.push(self.successors.len());
        });
    }

    /// The words the twin pair's record takes: each roll's successors, at
    /// most `width` of them, or one word for a roll that passes.
    pub(crate) fn record_len(&self, width: usize) -> usize {
        self.bounds
            .windows(2)
            .map(|bounds| crate::record::roll_words((bounds[1] - bounds[0]).min(width)))
            .sum()
    }

    /// Each moving roll's successors of the position (`0`) or its twin (`1`).
    pub(crate) fn rolls(&self, which: usize) -> impl Iterator<Item = &[u32]> {
        let n = (self.bounds.len() - 1) / 2;
        self.bounds[which * n..=(which + 1) * n]
            .windows(2)
            .map(|bounds| &self.successors[bounds[0]..bounds[1]])
    }
}

/// How many successors' values a Bellman pass asks for ahead of the twin
/// pair it evaluates: about two pairs whose moves it generated (sawah's
/// positions have about 15 successors each), or more pairs whose few
/// candidates it took.
pub(crate) const BELLMAN_AHEAD: usize = 64;

/// `(A, q)` of a position from every move of every roll (the Bellman
/// operator; `moves`, each roll's successors), writing each roll's `width`
/// best successors into `candidates`; and the smallest gap, over the
/// rolls, between the last of them and the best move left out (infinite
/// when no roll left one out).
pub(crate) fn bellman_parts<'m>(
    moves: impl Iterator<Item = &'m [u32]>,
    values: &Values,
    rolls: &Rolls,
    candidates: &mut [u32],
) -> ((f64, f64), f64) {
    let width = candidates.len() / rolls.moving.len().max(1);
    let mut moving = 0.0;
    let mut passing = rolls.still;
    let mut gap = f64::INFINITY;
    for ((&(_, p), slots), successors) in rolls
        .moving
        .iter()
        .zip(candidates.chunks_exact_mut(width))
        .zip(moves)
    {
        if successors.is_empty() {
            slots.fill(NONE);
            passing += p;
        } else if successors.len() <= width {
            // Every move is kept: only the best need be found (for the
            // value and the choice, first), not an order.
            moving += p * best_first(successors, values, slots);
        } else {
            let top = best_successors(successors, values, width);
            for (slot, &(_, successor)) in slots.iter_mut().zip(&top) {
                *slot = successor;
            }
            gap = smaller(gap, top[width - 1].0 - top[width].0);
            moving += p * top[0].0;
        }
    }
    ((moving, passing), gap)
}

/// Writes a roll's `successors` (at least one, at most `slots.len()`) into
/// `slots`, the best by its value first (ties: the first generated) and
/// the rest in any order, `NONE`-padded; returns the best value. No
/// branch on the values but the one kept for the best's place, which the
/// compiler makes a conditional move.
#[inline]
pub(crate) fn best_first(successors: &[u32], values: &Values, slots: &mut [u32]) -> f64 {
    let (mut best, mut at) = (f64::NEG_INFINITY, 0);
    for (n, &successor) in successors.iter().enumerate() {
        let value = successor_value(values, successor);
        slots[n] = successor;
        (best, at) = if value > best { (value, n) } else { (best, at) };
    }
    slots[successors.len()..].fill(NONE);
    slots.swap(0, at);
    best
}

/// The `width` best of a roll's `successors` (more than `width` of them)
/// by their values and the best one left out, best first (ties: the
/// first generated first). An insertion from the end into a small array
/// on the stack: a roll has a few moves (3.5 on average in sawah), and a
/// growing vector, searched from the front and shifted by `memmove`, took
/// a quarter of a first Bellman pass.
#[inline]
pub(crate) fn best_successors(
    successors: &[u32],
    values: &Values,
    width: usize,
) -> [(f64, u32); MAX_PIECES as usize + 1] {
    let mut top = [(f64::NEG_INFINITY, NONE); MAX_PIECES as usize + 1];
    let mut kept = 0;
    for &successor in successors {
        let value = successor_value(values, successor);
        let mut at = if kept <= width {
            kept += 1;
            kept - 1
        } else if value > top[width].0 {
            width
        } else {
            continue;
        };
        while at > 0 && value > top[at - 1].0 {
            top[at] = top[at - 1];
            at -= 1;
        }
        top[at] = (value, successor);
    }
    top
}
