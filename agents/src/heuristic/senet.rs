//! Senet's evaluation.

use super::weights::Weights;
use crate::evaluator::Evaluator;
use sawah_engine::Player;
use sawah_engine::senet::{BEAUTY, OFF, Position, SAFE, Senet};

/// Feature names, in the order of [`SenetHeuristic::features`].
pub const FEATURES: [&str; 6] = ["race", "protected", "walls", "exposed", "home", "on_beauty"];

/// Evaluation for Senet, from features seen from the side to move (each ours
/// minus theirs unless said otherwise):
///
/// * `race`: the opponent's pip count minus ours, relative to the total
///   (pips: houses left to bear each piece off);
/// * `protected`: pieces in pairs or walls (they cannot be attacked);
/// * `walls`: pieces in walls of three or more that still have opponent
///   pieces behind them to hold up;
/// * `exposed`: the chance-weighted progress of lone pieces that an
///   opponent piece can reach with one throw (ours minus theirs, so it
///   counts against us);
/// * `home`: pieces safe on 28–30 or borne off;
/// * `on_beauty`: pieces waiting on 26, which a throw of 1 sends into the water.
#[derive(Clone, Debug, PartialEq)]
pub struct SenetHeuristic {
    /// The feature weights.
    pub weights: Weights,
}

impl Default for SenetHeuristic {
    fn default() -> Self {
        SenetHeuristic {
            weights: Weights {
                names: &FEATURES,
                bias: 0.1,
                weights: vec![16.0, 0.12, 0.15, -0.5, 0.2, 0.05],
            },
        }
    }
}

const THROWS: [(u8, f64); 5] = [(1, 0.25), (2, 0.375), (3, 0.25), (4, 0.0625), (5, 0.0625)];

fn pips(position: &Position, player: Player) -> f64 {
    position
        .side(player)
        .squares()
        .map(|s| f64::from(OFF - s))
        .sum()
}

fn protected(bits: u32) -> u32 {
    bits & ((bits << 1) | (bits >> 1))
}

fn walls(bits: u32) -> u32 {
    let starts = bits & (bits >> 1) & (bits >> 2);
    starts | starts << 1 | starts << 2
}

/// Progress at risk for `victim`'s lone pieces below 26 that an opponent piece behind can reach.
fn exposed(position: &Position, victim: Player) -> f64 {
    let mine = position.side(victim).square_bits();
    let theirs = position.side(!victim).square_bits();
    let lone = mine & !protected(mine) & !SAFE;
    let mut risk = 0.0;
    for square in sawah_engine::bits::squares_of(lone) {
        let chance: f64 = THROWS
            .iter()
            .filter(|&&(t, _)| square > t && theirs >> (square - t) & 1 != 0)
            .map(|&(_, p)| p)
            .sum();
        risk += chance * f64::from(square) / 30.0;
    }
    risk
}

impl SenetHeuristic {
    /// The feature values for the side to move, in [`FEATURES`] order.
    pub fn features(position: &Position) -> [f64; 6] {
        let me = position.turn();
        let them = !me;
        let (mine, theirs) = (pips(position, me), pips(position, them));
        let race = (theirs - mine) / (0.5 * (mine + theirs) + 10.0);
        let bits = |p: Player| position.side(p).square_bits();
        let lowest = |p: Player| bits(p).trailing_zeros();
        let holding = |p: Player| {
            let wall = walls(bits(p));
            // Wall pieces above the opponent's rearmost piece hold it up.
            let behind = lowest(!p);
            (wall >> behind.min(31) << behind.min(31)).count_ones() as f64
        };
        let home = |p: Player| {
            (bits(p) & (1 << 28 | 1 << 29 | 1 << 30)).count_ones() as f64
                + f64::from(position.side(p).scored())
        };
        let beauty = |p: Player| f64::from(bits(p) >> BEAUTY & 1);
        [
            race,
            protected(bits(me)).count_ones() as f64 - protected(bits(them)).count_ones() as f64,
            holding(me) - holding(them),
            exposed(position, me) - exposed(position, them),
            home(me) - home(them),
            beauty(me) - beauty(them),
        ]
    }
}

impl Evaluator<Senet> for SenetHeuristic {
    fn evaluate(&self, _game: &Senet, position: &Position) -> f64 {
        self.weights.value(&Self::features(position))
    }
}
