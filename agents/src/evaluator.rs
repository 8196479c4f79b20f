//! Evaluators: the win probability of a position for the side to move.

use sawah_engine::Game;
use std::hash::{Hash, Hasher};

/// Values closer than this count as equal when picking the best move, so
/// rounding differences between search variants never change the choice:
/// ties go to the first move in the legal move order.
pub const TIE: f64 = 1e-12;

/// The index of the best value: the first within [`TIE`] of the maximum.
pub fn best_index(values: &[f64]) -> usize {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    values.iter().position(|&v| v >= max - TIE).unwrap_or(0)
}

/// Gives the probability that the side to move wins, before it rolls.
///
/// An evaluation is a pure function of the game and the position: the same
/// position always gets the same value, to the bit (search may remember
/// values, and a level must play the same moves everywhere).
pub trait Evaluator<G: Game> {
    /// The win probability for the side to move of a position that is not
    /// finished (search handles finished positions itself).
    fn evaluate(&self, game: &G, position: &G::Position) -> f64;

    /// Whether an evaluation costs enough (a network's forward pass) that a
    /// search should remember the values it has asked for rather than ask
    /// again; a hand-made evaluation is as cheap as the lookup.
    fn worth_remembering(&self) -> bool {
        false
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(&self, game: &G, position: &G::Position) -> f64 {
        (**self).evaluate(game, position)
    }

    fn worth_remembering(&self) -> bool {
        (**self).worth_remembering()
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&self, game: &G, position: &G::Position) -> f64 {
        (**self).evaluate(game, position)
    }

    fn worth_remembering(&self) -> bool {
        (**self).worth_remembering()
    }
}

/// The exact value of a finished position for the side to move: 1 if it has
/// won, 0 if the opponent has; `None` while the game goes on.
#[inline]
pub fn terminal_value<G: Game>(game: &G, position: &G::Position) -> Option<f64> {
    game.winner(position).map(|winner| {
        if winner == game.turn(position) {
            1.0
        } else {
            0.0
        }
    })
}

/// FxHash with 64-bit words on every platform: on 64-bit targets exactly
/// `rustc_hash::FxHasher` (2.x), and the same numbers on 32-bit ones such as
/// WebAssembly, where `FxHasher` works in 32-bit words. Noise and random
/// choices are keyed by this hash, so a level plays the same moves in the
/// browser as natively.
#[derive(Clone, Copy, Debug, Default)]
pub struct StableHasher {
    hash: u64,
}

impl StableHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = self.hash.wrapping_add(word).wrapping_mul(Self::K);
    }
}

impl Hasher for StableHasher {
    /// Bytes go in eight at a time, then their count (positions hash no
    /// byte strings; this is deterministic, not `FxHasher`'s byte hash).
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        self.add(bytes.len() as u64);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

/// A fast, deterministic 64-bit hash of a position, mixed with a seed; the
/// same on every platform (see [`StableHasher`]).
#[inline]
pub fn position_hash<P: Hash>(position: &P, seed: u64) -> u64 {
    let mut hasher = StableHasher::default();
    seed.hash(&mut hasher);
    position.hash(&mut hasher);
    // FxHash's low bits are weak; finish with a SplitMix64 mix.
    sawah_engine::seed::mix64(hasher.finish().wrapping_add(sawah_engine::seed::GAMMA))
}

/// An evaluator for tests: a fixed value for every position.
#[derive(Clone, Copy, Debug)]
pub struct ConstantEvaluator(pub f64);

impl<G: Game> Evaluator<G> for ConstantEvaluator {
    fn evaluate(&self, _game: &G, _position: &G::Position) -> f64 {
        self.0
    }
}

/// Adds deterministic noise to another evaluator, like GNU Backgammon's
/// noisy players: the same position always gets the same error, so a weak
/// bot is consistent, and the errors are normally distributed with standard
/// deviation `sigma` (in win probability), so small mistakes are far more
/// common than large ones. Results are clamped to [0, 1].
#[derive(Clone, Debug)]
pub struct NoisyEvaluator<E> {
    inner: E,
    sigma: f64,
    seed: u64,
}

impl<E> NoisyEvaluator<E> {
    /// Wraps `inner` with noise of standard deviation `sigma`, varied by `seed`.
    pub fn new(inner: E, sigma: f64, seed: u64) -> Self {
        NoisyEvaluator { inner, sigma, seed }
    }
}

/// A standard normal number determined by a 64-bit hash (Box–Muller on its two halves).
fn normal_from_hash(hash: u64) -> f64 {
    let u1 = ((hash >> 32) as f64 + 0.5) / 4_294_967_296.0;
    let u2 = ((hash & 0xffff_ffff) as f64 + 0.5) / 4_294_967_296.0;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for NoisyEvaluator<E> {
    fn evaluate(&self, game: &G, position: &G::Position) -> f64 {
        let value = self.inner.evaluate(game, position);
        if self.sigma == 0.0 {
            return value;
        }
        let z = normal_from_hash(position_hash(position, self.seed));
        (value + self.sigma * z).clamp(0.0, 1.0)
    }

    fn worth_remembering(&self) -> bool {
        self.inner.worth_remembering()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;

    #[test]
    fn noise_is_deterministic_normal_and_bounded() {
        let rules = race::preset("sawah").unwrap();
        let noisy = NoisyEvaluator::new(ConstantEvaluator(0.5), 0.05, 7);
        let start = rules.start();
        assert_eq!(
            noisy.evaluate(&rules, &start),
            noisy.evaluate(&rules, &start)
        );
        let zs: Vec<f64> = (0..20_000u64)
            .map(|i| normal_from_hash(position_hash(&i, 3)))
            .collect();
        let mean = zs.iter().sum::<f64>() / zs.len() as f64;
        let var = zs.iter().map(|z| (z - mean).powi(2)).sum::<f64>() / zs.len() as f64;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
        let small = zs.iter().filter(|z| z.abs() < 1.0).count() as f64 / zs.len() as f64;
        assert!((small - 0.6827).abs() < 0.02, "{small}");
        let loud = NoisyEvaluator::new(ConstantEvaluator(0.99), 10.0, 1);
        for i in 0..100u8 {
            let v = loud.evaluate(
                &rules,
                &rules.start_with(if i % 2 == 0 {
                    sawah_engine::Player::Light
                } else {
                    sawah_engine::Player::Dark
                }),
            );
            assert!((0.0..=1.0).contains(&v));
        }
    }

    /// The stable hasher is FxHash itself on 64-bit platforms, so the noise
    /// of every level is what it was when the levels were calibrated.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn the_stable_hasher_is_fxhash_on_64_bit_platforms() {
        use sawah_engine::{DiceSource, Game, Player, race, senet::Senet};
        let fx = |value: &dyn Fn(&mut dyn Hasher)| {
            let mut a = rustc_hash::FxHasher::default();
            let mut b = StableHasher::default();
            value(&mut a);
            value(&mut b);
            (a.finish(), b.finish())
        };
        let rules = race::preset("ur").unwrap();
        let senet = Senet::new();
        let mut dice = DiceSource::from_seed(5);
        let mut position = rules.start();
        let mut senet_position = senet.start();
        for step in 0..200u64 {
            let (a, b) = fx(&|h: &mut dyn Hasher| {
                let mut h = h;
                (step, &position, 3u8).hash(&mut h);
                senet_position.hash(&mut h);
                7usize.hash(&mut h);
                Some(Player::Dark).hash(&mut h);
            });
            assert_eq!(a, b, "step {step}");
            let roll = dice.roll(rules.dice());
            position = match rules.legal_moves(&position, roll).first() {
                Some(&mv) => rules.apply(&position, mv).position,
                None => rules.start(),
            };
            let throw = dice.roll(senet.dice());
            senet_position = match Game::legal_moves(&senet, &senet_position, throw).first() {
                Some(&mv) => Game::apply(&senet, &senet_position, mv).position,
                None => senet.start(),
            };
        }
    }
}
