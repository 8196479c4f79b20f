//! Dice as data: exact outcome probabilities, and one seeded source of rolls.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use thiserror::Error;

/// Largest number of outcomes (rolls 0..=15) a die may have.
pub const MAX_OUTCOMES: usize = 16;

/// How far the sum of the probabilities may stray from 1.
const SUM_TOLERANCE: f64 = 1e-9;

/// What is wrong with a list of roll probabilities.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum DiceError {
    /// No outcomes at all.
    #[error("the dice have no outcomes: give the probability of each roll 0, 1, 2, …")]
    Empty,
    /// More outcomes than supported.
    #[error("the dice have {count} outcomes; at most {MAX_OUTCOMES} (rolls 0..={}) are supported", MAX_OUTCOMES - 1)]
    TooManyOutcomes {
        /// How many were given.
        count: usize,
    },
    /// A probability that is negative, above 1 or not a number.
    #[error("the probability of roll {roll} is {probability}; it must be between 0 and 1")]
    BadProbability {
        /// The roll.
        roll: usize,
        /// The value given.
        probability: f64,
    },
    /// The probabilities do not add up to 1.
    #[error("the roll probabilities sum to {sum}, not 1")]
    SumNotOne {
        /// Their sum.
        sum: f64,
    },
    /// Only a roll of 0 can happen, so no piece would ever move.
    #[error("only a roll of 0 has a positive probability, so no piece could ever move")]
    NeverMoves,
}

/// The dice of a game: the probability of every roll `0..=max_roll`.
///
/// Probabilities are exact for the stick dice of every named rule set (they are
/// multiples of 1/16, exactly representable in `f64`), and sampling is exact
/// for any probability that is a multiple of 2^-64.
#[derive(Clone, Debug, PartialEq)]
pub struct Dice {
    probabilities: Vec<f64>,
    /// `thresholds[r]`: a uniform 64-bit number below it (and not below the
    /// previous one) gives roll `r`. The last possible roll takes the rest.
    thresholds: Vec<u64>,
    last_roll: u8,
}

impl Dice {
    /// Dice from the probability of each roll, index = roll value.
    ///
    /// # Examples
    ///
    /// Four two-sided sticks, counting the marked sides up: 0 to 4 with
    /// binomial weights. Weights that do not sum to 1 are refused.
    ///
    /// ```
    /// use sawah_engine::Dice;
    ///
    /// let sticks = Dice::new(vec![1.0 / 16.0, 4.0 / 16.0, 6.0 / 16.0, 4.0 / 16.0, 1.0 / 16.0])
    ///     .unwrap();
    /// assert_eq!(sticks.max_roll(), 4);
    /// assert_eq!(sticks.probability(2), 0.375);
    /// assert_eq!(sticks, Dice::four_sticks());
    /// let total: f64 = sticks.outcomes().map(|(_, p)| p).sum();
    /// assert_eq!(total, 1.0);
    ///
    /// assert!(Dice::new(vec![0.5, 0.4]).is_err());
    /// ```
    pub fn new(probabilities: Vec<f64>) -> Result<Dice, DiceError> {
        if probabilities.is_empty() {
            return Err(DiceError::Empty);
        }
        if probabilities.len() > MAX_OUTCOMES {
            return Err(DiceError::TooManyOutcomes {
                count: probabilities.len(),
            });
        }
        for (roll, &probability) in probabilities.iter().enumerate() {
            if !(0.0..=1.0).contains(&probability) {
                return Err(DiceError::BadProbability { roll, probability });
            }
        }
        let sum: f64 = probabilities.iter().sum();
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            return Err(DiceError::SumNotOne { sum });
        }
        if probabilities.iter().skip(1).all(|&p| p == 0.0) {
            return Err(DiceError::NeverMoves);
        }
        let scale = 2f64.powi(64);
        let mut cumulative = 0.0;
        let thresholds = probabilities
            .iter()
            .map(|&p| {
                cumulative += p;
                // Saturating float-to-int conversion: a threshold of 2^64 becomes u64::MAX,
                // and the last possible roll takes everything not below the earlier ones.
                (cumulative * scale) as u64
            })
            .collect();
        let last_roll = probabilities
            .iter()
            .rposition(|&p| p > 0.0)
            .expect("checked above that some roll is possible") as u8;
        Ok(Dice {
            probabilities,
            thresholds,
            last_roll,
        })
    }

    /// Four two-sided sticks counting light faces: 0..4 with 1, 4, 6, 4, 1 in 16.
    pub fn four_sticks() -> Dice {
        Dice::new(vec![
            1.0 / 16.0,
            4.0 / 16.0,
            6.0 / 16.0,
            4.0 / 16.0,
            1.0 / 16.0,
        ])
        .expect("the stick probabilities are valid")
    }

    /// The probability of each roll, index = roll value.
    pub fn probabilities(&self) -> &[f64] {
        &self.probabilities
    }

    /// The probability of `roll` (0 for a roll the dice cannot show).
    pub fn probability(&self, roll: u8) -> f64 {
        self.probabilities
            .get(roll as usize)
            .copied()
            .unwrap_or(0.0)
    }

    /// The largest roll listed (rolls run `0..=max_roll`).
    pub fn max_roll(&self) -> u8 {
        (self.probabilities.len() - 1) as u8
    }

    /// Every roll with a positive probability, with that probability.
    pub fn outcomes(&self) -> impl Iterator<Item = (u8, f64)> + '_ {
        self.probabilities
            .iter()
            .enumerate()
            .filter(|(_, p)| **p > 0.0)
            .map(|(roll, &p)| (roll as u8, p))
    }

    /// The roll that a uniformly distributed 64-bit number stands for.
    #[inline]
    pub fn roll_from_u64(&self, uniform: u64) -> u8 {
        for (roll, &threshold) in self.thresholds[..self.last_roll as usize]
            .iter()
            .enumerate()
        {
            if uniform < threshold {
                return roll as u8;
            }
        }
        self.last_roll
    }
}

/// The one seeded source of randomness for rolls (and anything else a game
/// needs at random), so every game can be replayed from its seed.
///
/// ChaCha8 is used because its output for a seed is fixed across platforms
/// and versions of `rand_chacha`, unlike `rand`'s `SmallRng`.
#[derive(Clone, Debug)]
pub struct DiceSource {
    rng: ChaCha8Rng,
}

impl DiceSource {
    /// A source that always gives the same sequence for the same seed.
    ///
    /// # Examples
    ///
    /// Two sources with one seed roll the same numbers, in the proportions
    /// the dice give (a roll of 2 is 6 in 16 with four sticks):
    ///
    /// ```
    /// use sawah_engine::{Dice, DiceSource};
    ///
    /// let sticks = Dice::four_sticks();
    /// let mut a = DiceSource::from_seed(42);
    /// let mut b = DiceSource::from_seed(42);
    /// let rolls: Vec<u8> = (0..1000).map(|_| a.roll(&sticks)).collect();
    /// assert!(rolls.iter().all(|&roll| roll == b.roll(&sticks)));
    /// let twos = rolls.iter().filter(|&&roll| roll == 2).count();
    /// assert!((300..450).contains(&twos), "{twos} twos in 1000, 375 expected");
    /// ```
    pub fn from_seed(seed: u64) -> DiceSource {
        DiceSource {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Rolls the dice.
    #[inline]
    pub fn roll(&mut self, dice: &Dice) -> u8 {
        dice.roll_from_u64(self.rng.next_u64())
    }

    /// A uniform index below `len` (for random choices); `len` must be positive.
    #[inline]
    pub fn below(&mut self, len: usize) -> usize {
        debug_assert!(len > 0);
        // Lemire's multiply-shift: exact enough for tiny `len` (bias below 2^-58).
        ((u128::from(self.rng.next_u64()) * len as u128) >> 64) as usize
    }

    /// The underlying generator, for callers that need other distributions.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }
}

impl Dice {
    /// `[{"roll":r,"probability":p}, …]` for every roll 0..=max_roll.
    pub fn outcomes_json(&self) -> serde_json::Value {
        serde_json::to_value(roll_odds(self)).unwrap_or_default()
    }
}

/// One roll and its probability.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct RollOdds {
    /// The roll.
    pub roll: usize,
    /// Its probability.
    pub probability: f64,
}

/// Every roll of `dice` with its probability, from 0 up (impossible rolls
/// too, with probability 0: Senet's 0).
pub fn roll_odds(dice: &Dice) -> Vec<RollOdds> {
    dice.probabilities()
        .iter()
        .enumerate()
        .map(|(roll, &probability)| RollOdds { roll, probability })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_sticks_have_binomial_weights() {
        let dice = Dice::four_sticks();
        let expected = [1.0, 4.0, 6.0, 4.0, 1.0].map(|w| w / 16.0);
        assert_eq!(dice.probabilities(), &expected);
        assert_eq!(dice.max_roll(), 4);
    }

    #[test]
    fn sampling_partitions_the_u64_range_exactly() {
        let dice = Dice::four_sticks();
        let step = 1u64 << 60; // 2^64 / 16
        // Boundaries fall exactly at multiples of 1/16.
        assert_eq!(dice.roll_from_u64(0), 0);
        assert_eq!(dice.roll_from_u64(step - 1), 0);
        assert_eq!(dice.roll_from_u64(step), 1);
        assert_eq!(dice.roll_from_u64(5 * step - 1), 1);
        assert_eq!(dice.roll_from_u64(5 * step), 2);
        assert_eq!(dice.roll_from_u64(11 * step), 3);
        assert_eq!(dice.roll_from_u64(15 * step - 1), 3);
        assert_eq!(dice.roll_from_u64(15 * step), 4);
        assert_eq!(dice.roll_from_u64(u64::MAX), 4);
    }

    #[test]
    fn trailing_impossible_rolls_are_never_sampled() {
        let dice = Dice::new(vec![0.5, 0.5, 0.0]).unwrap();
        assert_eq!(dice.roll_from_u64(u64::MAX), 1);
        assert_eq!(dice.max_roll(), 2);
    }

    #[test]
    fn sampled_frequencies_match_weights() {
        let dice = Dice::four_sticks();
        let mut source = DiceSource::from_seed(7);
        let mut counts = [0u32; 5];
        let n = 160_000;
        for _ in 0..n {
            counts[source.roll(&dice) as usize] += 1;
        }
        for (roll, &count) in counts.iter().enumerate() {
            let expected = dice.probability(roll as u8) * n as f64;
            // Five standard deviations of a binomial count.
            let sd = (expected * (1.0 - expected / n as f64)).sqrt();
            assert!(
                (count as f64 - expected).abs() < 5.0 * sd,
                "roll {roll}: {count} vs {expected}"
            );
        }
    }

    #[test]
    fn same_seed_same_rolls() {
        let dice = Dice::four_sticks();
        let mut a = DiceSource::from_seed(42);
        let mut b = DiceSource::from_seed(42);
        let ra: Vec<u8> = (0..100).map(|_| a.roll(&dice)).collect();
        let rb: Vec<u8> = (0..100).map(|_| b.roll(&dice)).collect();
        assert_eq!(ra, rb);
    }

    #[test]
    fn invalid_dice_are_refused() {
        assert_eq!(Dice::new(vec![]), Err(DiceError::Empty));
        assert!(matches!(
            Dice::new(vec![0.5, 0.4]),
            Err(DiceError::SumNotOne { .. })
        ));
        assert!(matches!(
            Dice::new(vec![-0.5, 1.5]),
            Err(DiceError::BadProbability { roll: 0, .. })
        ));
        assert!(matches!(
            Dice::new(vec![f64::NAN, 1.0]),
            Err(DiceError::BadProbability { .. })
        ));
        assert_eq!(Dice::new(vec![1.0]), Err(DiceError::NeverMoves));
        assert!(matches!(
            Dice::new(vec![1.0 / 17.0; 17]),
            Err(DiceError::TooManyOutcomes { count: 17 })
        ));
    }
}
