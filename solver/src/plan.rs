//! The memory plan: how a layer pair's moves are recorded (candidates per
//! roll, choices), the policy memory sized to the largest pair, and the
//! layer pairs and their blocks.

use crate::options::PARTIAL_WIDTHS;
use crate::policy::{Policy, Rolls, split_into};
use rayon::prelude::*;
use sawah_engine::race::{LayerPair, Position, PositionIndex, RuleSet};

/// How a layer pair's moves are recorded: the candidates per roll, and
/// whether each roll's choice among them is kept as well.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Layout {
    pub(crate) width: usize,
    pub(crate) choices: bool,
}

impl Layout {
    /// The least a pair can be solved with: one candidate per roll (its own
    /// choice).
    pub(crate) const NARROWEST: Layout = Layout {
        width: 1,
        choices: false,
    };

    /// Whether `width` holds every move of `pieces` (a move moves one
    /// piece, and pieces waiting to enter make one move): then sweeps
    /// apply the Bellman operator itself and no margin is needed.
    pub(crate) fn every_move(self, pieces: u8) -> bool {
        self.width >= usize::from(pieces)
    }

    /// One twin pair's (two positions') parts of the policy: its two
    /// indices, both positions' candidate slots and, with the choices, one
    /// successor per roll each, the choice margin (one byte) and both
    /// positions' recorded changes (a byte each); with fewer candidates
    /// than every move of `pieces`, its margin (one byte). Split (a few
    /// candidates with the choices), a roll's choice is one of its
    /// candidates, so its record has a slot fewer.
    pub(crate) fn per_twin_pair(self, moving_rolls: usize, pieces: u8) -> PolicySizes {
        let choices = usize::from(self.choices);
        let slots = self.width - usize::from(self.split(pieces));
        PolicySizes {
            twins: 2,
            records: 2 * moving_rolls * slots,
            lengths: usize::from(self.packed(moving_rolls, pieces)),
            chosen: 2 * moving_rolls * choices,
            margins: usize::from(!self.every_move(pieces)),
            choice_margins: choices,
            deltas: 2 * choices,
        }
    }

    /// Whether each roll's choice is one of its candidates, the record
    /// holding the others (with the choices, for fewer candidates than
    /// every move): the sweeps over the choices read the choices alone
    /// either way, and the choices then cost no memory of their own. With
    /// the choices in the records instead (the first of each roll's slots),
    /// the sweeps over the choices streamed the whole records, and sawah's
    /// largest pair at three candidates took 1.9 s per sweep over the
    /// choices against 1.35 s with them apart (docs/solver.md). Records of
    /// every move keep them apart: a packed roll has no fixed place.
    pub(crate) fn split(self, pieces: u8) -> bool {
        self.choices && !self.every_move(pieces)
    }

    /// Whether the records are packed (`crate::record`): with every move,
    /// when a twin pair's record length fits in its byte.
    pub(crate) fn packed(self, moving_rolls: usize, pieces: u8) -> bool {
        self.every_move(pieces) && 2 * moving_rolls * self.width <= usize::from(u8::MAX)
    }

    /// Bytes for a layer pair of `states` positions (taking a twin pair per
    /// two positions; a position that is its own twin has a pair to itself,
    /// and such positions are few) whose records of every move, packed,
    /// take `packed_words`.
    pub(crate) fn bytes(
        self,
        states: u64,
        packed_words: u64,
        moving_rolls: usize,
        pieces: u8,
    ) -> u64 {
        let per_pair = self.per_twin_pair(moving_rolls, pieces);
        if self.packed(moving_rolls, pieces) {
            let besides = PolicySizes {
                records: 0,
                ..per_pair
            };
            states * besides.bytes() / 2 + 4 * packed_words
        } else {
            states * per_pair.bytes() / 2
        }
    }

    /// The first layout that fits in `memory` bytes besides the values of
    /// `positions` held, for a layer pair of `states` positions, in this
    /// order: every move (which fits in `pieces` slots per roll: a move
    /// moves one piece, and pieces waiting to enter make one move) with the
    /// choices, every move, then the partial widths with the choices, widest
    /// first, then without. The choices come before a wider record because
    /// the sweeps over them read one value per roll (sawah's largest pair,
    /// where two candidates with the choices cost as much memory as three
    /// without: 456 s with them, 610 s with two and none; docs/solver.md).
    pub(crate) fn that_fits(
        positions: u64,
        (states, packed_words): (u64, u64),
        moving_rolls: usize,
        pieces: u8,
        memory: u64,
    ) -> Option<Layout> {
        let every = usize::from(pieces);
        let partial = || PARTIAL_WIDTHS.into_iter().filter(move |&w| w < every);
        [(every, true), (every, false)]
            .into_iter()
            // One candidate per roll is its own choice.
            .chain(partial().filter(|&w| w > 1).map(|w| (w, true)))
            .chain(partial().map(|w| (w, false)))
            .map(|(width, choices)| Layout { width, choices })
            .find(|layout| {
                8 * positions + layout.bytes(states, packed_words, moving_rolls, pieces) <= memory
            })
    }
}

/// How long each part of a policy is (see [`Policy`]), in elements: the
/// twins, records and choices are `u32`, the lengths and margins bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PolicySizes {
    pub(crate) twins: usize,
    pub(crate) records: usize,
    pub(crate) lengths: usize,
    pub(crate) chosen: usize,
    pub(crate) margins: usize,
    pub(crate) choice_margins: usize,
    pub(crate) deltas: usize,
}

impl PolicySizes {
    /// The parts of `count` of these.
    pub(crate) fn times(self, count: usize) -> PolicySizes {
        PolicySizes {
            twins: self.twins * count,
            records: self.records * count,
            lengths: self.lengths * count,
            chosen: self.chosen * count,
            margins: self.margins * count,
            choice_margins: self.choice_margins * count,
            deltas: self.deltas * count,
        }
    }

    /// The bytes of all the parts.
    pub(crate) fn bytes(self) -> u64 {
        let words = self.twins + self.records + self.chosen;
        (4 * words + self.lengths + self.margins + self.choice_margins + self.deltas) as u64
    }
}

/// The memory the layer pairs' policies are recorded in: one allocation
/// per part, reserved once for the largest pair (address space only) and
/// used by each pair in turn. With an allocation per pair, each pair's
/// records were new memory, which the kernel zeroes on first write: in a
/// virtual machine of this project's kind that ran at 0.3–2 GB/s and took
/// 7% of masters-5's time. A pair gives back the pages beyond its own
/// parts ([`crate::memory::trim`]), so the process holds no more than
/// before: the values and the records of the pair being solved.
pub(crate) struct PolicyMemory {
    pub(crate) twins: Vec<u32>,
    pub(crate) records: Vec<u32>,
    pub(crate) lengths: Vec<u8>,
    pub(crate) chosen: Vec<u32>,
    pub(crate) margins: Vec<u8>,
    pub(crate) choice_margins: Vec<u8>,
    pub(crate) deltas: Vec<u8>,
}

impl PolicyMemory {
    /// Room for the largest of `sizes` in each part.
    pub(crate) fn reserve(sizes: impl Iterator<Item = PolicySizes>) -> PolicyMemory {
        let most = sizes.fold(PolicySizes::default(), |most, size| PolicySizes {
            twins: most.twins.max(size.twins),
            records: most.records.max(size.records),
            lengths: most.lengths.max(size.lengths),
            chosen: most.chosen.max(size.chosen),
            margins: most.margins.max(size.margins),
            choice_margins: most.choice_margins.max(size.choice_margins),
            deltas: most.deltas.max(size.deltas),
        });
        PolicyMemory {
            twins: crate::memory::zeroed(most.twins),
            records: crate::memory::zeroed(most.records),
            lengths: crate::memory::zeroed(most.lengths),
            chosen: crate::memory::zeroed(most.chosen),
            margins: crate::memory::zeroed(most.margins),
            choice_margins: crate::memory::zeroed(most.choice_margins),
            deltas: crate::memory::zeroed(most.deltas),
        }
    }

    /// The parts for a pair of `per_pair` per twin pair (at most those
    /// reserved), cut into its blocks' policies (`twin_pairs` in each, and
    /// `record_sizes` words of records), giving back the pages after them.
    /// The margins are zero (none measured); the twins, records, lengths,
    /// choices and changes hold whatever an earlier pair left, and
    /// a pair writes them before it reads them (the first Bellman pass
    /// generates every twin pair, its margins being zero; the first sweep
    /// over the candidates notes every choice, its choice margins being
    /// zero; a sweep records every change it extrapolates along).
    pub(crate) fn policies(
        &mut self,
        per_pair: PolicySizes,
        twin_pairs: &[usize],
        record_sizes: &[usize],
    ) -> Vec<Policy<'_>> {
        let sizes = PolicySizes {
            records: record_sizes.iter().sum(),
            ..per_pair.times(twin_pairs.iter().sum())
        };
        fn part<T: crate::memory::Zeroable>(data: &mut [T], len: usize) -> &mut [T] {
            crate::memory::trim(data, len);
            &mut data[..len]
        }
        let margins = part(&mut self.margins, sizes.margins);
        margins.fill(0);
        let choice_margins = part(&mut self.choice_margins, sizes.choice_margins);
        choice_margins.fill(0);
        let twins = part(&mut self.twins, sizes.twins);
        let records = part(&mut self.records, sizes.records);
        let lengths = part(&mut self.lengths, sizes.lengths);
        let chosen = part(&mut self.chosen, sizes.chosen);
        let deltas = part(&mut self.deltas, sizes.deltas);
        split_into(twins, twin_pairs, per_pair.twins)
            .into_iter()
            .zip(split_into(records, record_sizes, 1))
            .zip(split_into(lengths, twin_pairs, per_pair.lengths))
            .zip(split_into(chosen, twin_pairs, per_pair.chosen))
            .zip(split_into(margins, twin_pairs, per_pair.margins))
            .zip(split_into(
                choice_margins,
                twin_pairs,
                per_pair.choice_margins,
            ))
            .zip(split_into(deltas, twin_pairs, per_pair.deltas))
            .map(
                |((((((twins, records), lengths), chosen), margins), choice_margins), deltas)| {
                    Policy {
                        twins,
                        records,
                        lengths,
                        chosen,
                        margins,
                        choice_margins,
                        deltas,
                    }
                },
            )
            .collect()
    }
}

/// The values held while the layer pair `(a, b)` is solved: every
/// position's, or, when finished pairs are `released` (kept in their
/// checkpoints), the finished positions' and the two score diagonals the
/// pair reads (its own, `a + b`, and the one above).
pub(crate) fn held_values(
    index: &PositionIndex,
    pieces: u8,
    pair: LayerPair,
    release: bool,
) -> u64 {
    if !release {
        return index.len();
    }
    let pairs = LayerPair::all(pieces);
    let total = pair.borne_off();
    let unfinished: u64 = pairs.iter().map(|&pair| index.pair_len(pair)).sum();
    let diagonals: u64 = pairs
        .iter()
        .filter(|pair| pair.borne_off() == total || pair.borne_off() == total + 1)
        .map(|&pair| index.pair_len(pair))
        .sum();
    index.len() - unfinished + diagonals
}

/// The words a position's record takes with at most `width` candidates
/// per roll (`crate::record`).
pub(crate) fn record_words(
    rules: &RuleSet,
    rolls: &Rolls,
    width: usize,
    position: &Position,
) -> usize {
    rolls
        .moving
        .iter()
        .map(|&(roll, _)| {
            let count = rules.move_count(position, roll) as usize;
            crate::record::roll_words(count.min(width))
        })
        .sum()
}

/// One position in how many a layout's memory estimate counts the moves of.
pub(crate) const SAMPLE_STEP: u64 = 61;

/// The words a layer pair's records take packed with every move, estimated
/// from every `step`-th position (each position's moves are in one twin
/// pair's record), with 1% to spare: what the memory plan counts for a
/// packed layout. The pair's records are then allocated at their exact
/// size, counted when it starts.
pub(crate) fn packed_words_estimate(
    rules: &RuleSet,
    index: &PositionIndex,
    rolls: &Rolls,
    pair: LayerPair,
    step: u64,
) -> u64 {
    let width = usize::from(rules.pieces());
    // Every position whose index is a multiple of `step`, unranked inside
    // its block (unranking from the index alone searches for the block:
    // sawah's plan took 10 s that way).
    let sampled: u64 = index
        .pair_blocks(pair)
        .par_iter()
        .flat_map_iter(|block| {
            let first = block.start.div_ceil(step) * step - block.start;
            (first..block.len)
                .step_by(step as usize)
                .filter_map(|offset| index.position_in_block(block, offset))
        })
        .map(|position| record_words(rules, rolls, width, &position) as u64)
        .sum();
    sampled * step * 101 / 100
}
