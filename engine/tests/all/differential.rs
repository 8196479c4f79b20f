//! The fast bitset move generator agrees with the literal reference on every
//! rule set, over random valid positions and positions from random play.

use crate::common::{RefMove, positions_from_play, random_position, reference_moves};
use sawah_engine::DiceSource;
use sawah_engine::race::{self, Position, RuleSet};

fn fast_moves(rules: &RuleSet, position: &Position, roll: u8) -> Vec<RefMove> {
    rules
        .legal_moves(position, roll)
        .iter()
        .map(|&mv| {
            let outcome = rules.apply(position, mv);
            RefMove {
                from: mv.from,
                to: mv.to,
                after: outcome.position.to_setup(),
                extra_roll: outcome.extra_roll,
            }
        })
        .collect()
}

fn check(rules: &RuleSet, position: &Position) {
    for roll in 0..=rules.dice().max_roll() {
        let fast = fast_moves(rules, position, roll);
        let reference = reference_moves(rules, &position.to_setup(), roll);
        assert_eq!(
            fast,
            reference,
            "{} roll {roll} at {}",
            rules.name(),
            sawah_engine::notation::format(&rules.position_to_json(position))
        );
    }
}

#[test]
fn fast_generator_matches_reference_on_every_preset() {
    for name in race::all_preset_names() {
        let rules = race::preset(name).unwrap();
        let mut source = DiceSource::from_seed(0x5eed ^ name.len() as u64);
        for _ in 0..3_000 {
            check(&rules, &random_position(&rules, &mut source));
        }
        for position in positions_from_play(&rules, 11, 3_000) {
            check(&rules, &position);
        }
    }
}
