//! How a twin pair's recorded successors are laid out in its record.
//!
//! A record holds a twin pair's two positions' rolls in turn (the
//! position's moving rolls, then its twin's), each roll as its candidates,
//! best first, the last one marked with [`LAST`], or as a single [`NONE`]
//! when the roll cannot move (the mover passes). A word is a successor's
//! index, with [`SAME`] when the move gives another roll (its value counts
//! as is; without it the turn passed and the value counts as `1 − v`).
//!
//! With the roll boundaries marked in the words, a record can be as long
//! as the moves it holds: a roll takes [`roll_words`] words instead of a
//! fixed `width`. Records that keep every move are *packed* (each twin
//! pair's record follows the one before, its length in a byte per twin
//! pair): a roll of sawah has about 3.5 moves on average, against 7 slots,
//! so packing halves the memory those records take and the bytes a sweep
//! over every move streams. Records of a few candidates stay at a fixed
//! stride, padded with [`NONE`]: there nearly every roll fills its slots
//! (sawah's largest pair, two candidates: 99%), and a byte per twin pair
//! would cost memory the largest pairs do not have.

/// Marks a successor whose value counts as is (an extra roll).
pub const SAME: u32 = 1 << 31;
/// Marks the last candidate of a roll.
pub const LAST: u32 = 1 << 30;
/// The successor's index in a word.
pub const INDEX: u32 = LAST - 1;
/// A roll with no move (the mover passes); also an empty slot.
pub const NONE: u32 = u32::MAX;

/// The positions a record can name: indices below this (so that no index
/// with both flags reads as [`NONE`]).
pub const MAX_POSITIONS: u64 = INDEX as u64;

/// The words a roll of `count` candidates takes in a record.
#[inline]
pub fn roll_words(count: usize) -> usize {
    count.max(1)
}

/// Writes the rolls of `candidates` (`width` slots per roll, `NONE`-padded,
/// each word without [`LAST`]) into the start of `out`, marking each roll's
/// last candidate, and fills the rest of `out` with `NONE`. `out` must hold
/// at least the words the rolls take ([`roll_words`] each).
pub fn write(candidates: &[u32], width: usize, out: &mut [u32]) {
    let mut at = 0;
    for slots in candidates.chunks_exact(width) {
        let count = slots.iter().take_while(|&&c| c != NONE).count();
        if count == 0 {
            out[at] = NONE;
            at += 1;
            continue;
        }
        out[at..at + count].copy_from_slice(&slots[..count]);
        out[at + count - 1] |= LAST;
        at += count;
    }
    out[at..].fill(NONE);
}

/// Calls `each` with the successors of each of the first `rolls` rolls of
/// `record`, as recorded (the last word of a roll with [`LAST`]; an empty
/// slice for a roll that passes); returns the words they took.
pub fn read<'r>(record: &'r [u32], rolls: usize, mut each: impl FnMut(&'r [u32])) -> usize {
    let mut at = 0;
    for _ in 0..rolls {
        if record[at] == NONE {
            at += 1;
            each(&[]);
            continue;
        }
        let start = at;
        while record[at] & LAST == 0 {
            at += 1;
        }
        at += 1;
        each(&record[start..at]);
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A roll's words as they were written, without the mark of the last.
    fn without_last(roll: &[u32]) -> Vec<u32> {
        roll.iter().map(|&word| word & !LAST).collect()
    }

    #[test]
    fn a_roll_takes_its_candidates_or_one_word_when_it_passes() {
        let candidates = [5, 7 | SAME, NONE, NONE, NONE, NONE, 9, NONE];
        let mut out = [0; 8];
        write(&candidates, 2, &mut out);
        assert_eq!(
            out,
            [5, 7 | SAME | LAST, NONE, NONE, 9 | LAST, NONE, NONE, NONE]
        );
        let mut rolls = Vec::new();
        let used = read(&out, 4, |roll| rolls.push(without_last(roll)));
        assert_eq!(used, 5);
        assert_eq!(rolls, [vec![5, 7 | SAME], vec![], vec![], vec![9]]);
        assert_eq!([0, 1, 2].map(roll_words), [1, 1, 2]);
    }

    proptest! {
        /// Reading a written record gives back every roll's candidates, in
        /// as many words as `roll_words` counts.
        #[test]
        fn records_read_back_what_was_written(
            rolls in proptest::collection::vec(
                proptest::collection::vec((0..MAX_POSITIONS as u32, any::<bool>()), 0..=7),
                1..=16,
            ),
            spare in 0usize..4,
        ) {
            let width = 7;
            let mut candidates = Vec::new();
            let mut expected = Vec::new();
            for roll in &rolls {
                let words: Vec<u32> = roll
                    .iter()
                    .map(|&(index, same)| index | if same { SAME } else { 0 })
                    .collect();
                candidates.extend(&words);
                candidates.extend(std::iter::repeat_n(NONE, width - words.len()));
                expected.push(words);
            }
            let len: usize = rolls.iter().map(|roll| roll_words(roll.len())).sum();
            let mut out = vec![0; len + spare];
            write(&candidates, width, &mut out);
            prop_assert!(out[len..].iter().all(|&w| w == NONE));
            let mut got = Vec::new();
            let used = read(&out, rolls.len(), |roll| got.push(without_last(roll)));
            prop_assert_eq!(used, len);
            prop_assert_eq!(got, expected);
        }
    }
}
