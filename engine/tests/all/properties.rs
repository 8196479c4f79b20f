//! Property tests over random valid positions of every preset.

use crate::common::random_position;
use proptest::prelude::*;
use sawah_engine::playout::random_playout;
use sawah_engine::race::{self, RuleSet};
use sawah_engine::{DiceSource, Player};

fn preset_by_index(index: usize) -> RuleSet {
    let names: Vec<&str> = race::all_preset_names().collect();
    race::preset(names[index % names.len()]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_move_keeps_all_pieces_and_gives_a_valid_position(rules_index in 0usize..15, seed in any::<u64>()) {
        let rules = preset_by_index(rules_index);
        let position = random_position(&rules, &mut DiceSource::from_seed(seed));
        for roll in 0..=rules.dice().max_roll() {
            for &mv in rules.legal_moves(&position, roll).iter() {
                let after = rules.apply(&position, mv).position;
                for player in Player::BOTH {
                    let side = after.side(player);
                    prop_assert_eq!(side.waiting() + side.on_board() + side.scored(), rules.pieces());
                }
                // The result passes the same validation as outside input.
                prop_assert_eq!(rules.position(&after.to_setup()), Ok(after));
                // Scores never go down.
                for player in Player::BOTH {
                    prop_assert!(after.side(player).scored() >= position.side(player).scored());
                }
            }
        }
    }

    #[test]
    fn flipped_positions_have_mirrored_moves(rules_index in 0usize..15, seed in any::<u64>()) {
        let rules = preset_by_index(rules_index);
        let position = random_position(&rules, &mut DiceSource::from_seed(seed));
        let flipped = position.flipped();
        prop_assert_eq!(flipped.flipped(), position);
        prop_assert_eq!(rules.winner(&flipped), rules.winner(&position).map(|w| !w));
        for roll in 0..=rules.dice().max_roll() {
            let moves = rules.legal_moves(&position, roll);
            prop_assert_eq!(rules.legal_moves(&flipped, roll), moves);
            for &mv in moves.iter() {
                let a = rules.apply(&position, mv);
                let b = rules.apply(&flipped, mv);
                prop_assert_eq!(b.position, a.position.flipped());
                prop_assert_eq!(b.extra_roll, a.extra_roll);
                prop_assert_eq!(b.captured, a.captured);
            }
        }
    }

    #[test]
    fn random_games_always_end(rules_index in 0usize..15, seed in any::<u64>()) {
        let rules = preset_by_index(rules_index);
        let mut source = DiceSource::from_seed(seed);
        let stats = random_playout(&rules, rules.start(), &mut source, 1_000_000);
        prop_assert!(stats.winner.is_some(), "no winner after {} plies", stats.plies);
        prop_assert!(stats.moves >= 2 * u64::from(rules.pieces()) - 1);
    }
}
