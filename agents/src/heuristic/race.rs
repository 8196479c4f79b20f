//! The race family's evaluation.

use super::weights::Weights;
use crate::evaluator::Evaluator;
use sawah_engine::Player;
use sawah_engine::race::{Position, RuleSet};

/// Feature names, in the order of [`RaceHeuristic::features`].
pub const FEATURES: [&str; 5] = ["race", "danger", "threat", "safe_marks", "extra_rolls"];

/// Evaluation for Twenty Squares and the Royal Game of Ur, from features
/// seen from the side to move:
///
/// * `race`: the opponent's pip count minus ours, relative to the total
///   (pips: steps left to bear every piece off, waiting pieces included);
/// * `danger`: steps we expect to lose to a capture on the opponent's next
///   roll (each exposed piece's progress times the chance that some roll
///   brings an opponent piece onto it), in units of the route length;
/// * `threat`: the same for the opponent's pieces, which we may hit;
/// * `safe_marks`: our pieces on shared safe marks minus theirs;
/// * `extra_rolls`: our chance of landing on a free mark with the next roll
///   minus theirs.
#[derive(Clone, Debug, PartialEq)]
pub struct RaceHeuristic {
    /// The feature weights.
    pub weights: Weights,
}

impl Default for RaceHeuristic {
    fn default() -> Self {
        RaceHeuristic {
            weights: Weights {
                names: &FEATURES,
                bias: 0.3,
                weights: vec![10.0, -0.6, 1.2, 0.7, 0.25],
            },
        }
    }
}

/// Steps left for a side to bear off every piece.
fn pips(rules: &RuleSet, position: &Position, player: Player) -> f64 {
    let side = position.side(player);
    let off = u32::from(rules.off());
    let on_board: u32 = side.squares().map(|s| off - u32::from(s)).sum();
    f64::from(on_board + u32::from(side.waiting()) * off)
}

/// The expected steps `victim` loses to a capture on `hunter`'s next roll.
fn exposure(rules: &RuleSet, position: &Position, victim: Player) -> f64 {
    let hunter = !victim;
    let hunters = position.side(hunter);
    let dice = rules.dice();
    let mut expected = 0.0;
    for square in position.side(victim).squares() {
        let Some(target) = rules.opponent_square(victim, square) else {
            continue; // a private square
        };
        if rules.marks_are_safe() && rules.is_marked_square(victim, square) {
            continue;
        }
        // Rolls that bring some hunter onto `target` (hunter's numbering).
        let mut hit = 0.0;
        for (roll, p) in dice.outcomes() {
            if roll == 0 || roll > target {
                continue;
            }
            let from = target - roll;
            let can = if from == 0 {
                hunters.waiting() > 0
            } else {
                hunters.has(from)
            };
            if can {
                hit += p;
            }
        }
        expected += hit * f64::from(square);
    }
    expected / f64::from(rules.off())
}

fn safe_marks(rules: &RuleSet, position: &Position, player: Player) -> f64 {
    if !rules.marks_are_safe() {
        return 0.0;
    }
    position
        .side(player)
        .squares()
        .filter(|&s| rules.is_marked_square(player, s) && rules.is_shared_square(player, s))
        .count() as f64
}

/// The chance that `player`'s next roll can end on a free mark.
fn extra_roll_chance(rules: &RuleSet, position: &Position, player: Player) -> f64 {
    if !rules.marks_give_extra_roll() {
        return 0.0;
    }
    let side = position.side(player);
    let other = position.side(!player);
    let mut chance = 0.0;
    for (roll, p) in rules.dice().outcomes() {
        if roll == 0 {
            continue;
        }
        let lands = (1..=rules.route_len()).any(|mark| {
            if !rules.is_marked_square(player, mark) || side.has(mark) || mark < roll {
                return false;
            }
            let blocked = rules
                .opponent_square(player, mark)
                .is_some_and(|s| other.has(s) && rules.marks_are_safe());
            let from = mark - roll;
            let source = if from == 0 {
                side.waiting() > 0
            } else {
                side.has(from)
            };
            source && !blocked
        });
        if lands {
            chance += p;
        }
    }
    chance
}

impl RaceHeuristic {
    /// The feature values for the side to move, in [`FEATURES`] order.
    pub fn features(rules: &RuleSet, position: &Position) -> [f64; 5] {
        let me = position.turn();
        let them = !me;
        let (mine, theirs) = (pips(rules, position, me), pips(rules, position, them));
        let race = (theirs - mine) / (0.5 * (mine + theirs) + f64::from(rules.off()));
        [
            race,
            exposure(rules, position, me),
            exposure(rules, position, them),
            safe_marks(rules, position, me) - safe_marks(rules, position, them),
            extra_roll_chance(rules, position, me) - extra_roll_chance(rules, position, them),
        ]
    }
}

impl Evaluator<RuleSet> for RaceHeuristic {
    fn evaluate(&self, rules: &RuleSet, position: &Position) -> f64 {
        self.weights.value(&Self::features(rules, position))
    }
}
