//! The solver's index: dense and bijective over the valid positions.

use crate::common::random_position;
use sawah_engine::race::{self, PositionIndex, valid_position_count};
use sawah_engine::{DiceSource, Player};

#[test]
fn the_index_is_a_bijection_on_the_tiny_presets() {
    for name in race::TINY_RULE_SETS {
        let rules = race::preset(name).unwrap();
        let index = PositionIndex::new(&rules);
        assert_eq!(
            u128::from(index.len()),
            valid_position_count(&rules),
            "{name}"
        );
        for i in 0..index.len() {
            let position = index.position(i).unwrap();
            assert_eq!(position.turn(), Player::Light);
            // Every indexed position is valid, and indexes back to itself.
            assert_eq!(
                rules.position(&position.to_setup()),
                Ok(position),
                "{name} #{i}"
            );
            assert_eq!(index.index(&position), i, "{name} #{i}");
        }
        assert_eq!(index.position(index.len()), None);
    }
}

#[test]
fn random_positions_of_every_preset_round_trip() {
    for name in race::all_preset_names() {
        let rules = race::preset(name).unwrap();
        let index = PositionIndex::new(&rules);
        assert_eq!(
            u128::from(index.len()),
            valid_position_count(&rules),
            "{name}"
        );
        let mut source = DiceSource::from_seed(17);
        for _ in 0..2_000 {
            let position = random_position(&rules, &mut source);
            let i = index.index(&position);
            assert!(i < index.len(), "{name}");
            let normal = if position.turn() == Player::Light {
                position
            } else {
                position.flipped()
            };
            assert_eq!(index.position(i), Some(normal), "{name}");
            // A position and its colour-flipped twin share the index.
            assert_eq!(index.index(&position.flipped()), i);
        }
    }
}

#[test]
fn layers_tile_the_index() {
    let rules = race::preset("ur-2").unwrap();
    let index = PositionIndex::new(&rules);
    let mut covered = 0;
    for s_m in 0..=2 {
        for s_o in 0..=2 {
            let range = index.layer_range(s_m, s_o);
            covered += range.end - range.start;
            for i in range.clone().step_by(7) {
                let p = index.position(i).unwrap();
                assert_eq!(
                    (
                        p.side(Player::Light).scored(),
                        p.side(Player::Dark).scored()
                    ),
                    (s_m, s_o)
                );
            }
        }
    }
    assert_eq!(covered, index.len());
}
