//! Layer checkpoints against damaged files: a checkpoint that is cut short
//! or foreign is ignored (the pair is solved again); a changed byte either
//! loads or is ignored; never a panic.

use proptest::prelude::*;
use sawah_engine::race::{self, LayerPair, PositionIndex};
use sawah_solver::checkpoint;
use std::path::PathBuf;

const PAIR: LayerPair = LayerPair::new(0, 1);

/// A folder holding masters-2's checkpoint of layer pair (0, 1), with
/// made-up values, and that checkpoint's bytes.
fn saved(name: &str) -> (PathBuf, Vec<u8>) {
    let rules = race::preset("masters-2").unwrap();
    let index = PositionIndex::new(&rules);
    let dir = std::env::temp_dir().join(format!("sawah-ckpt-{name}-{}", std::process::id()));
    checkpoint::save(&dir, &rules, &index, PAIR, 1e-11, |i| i as f64 * 1e-6).unwrap();
    let file = dir.join("layers-0-1.bin");
    let bytes = std::fs::read(&file).unwrap();
    (dir, bytes)
}

fn load(dir: &std::path::Path, bytes: &[u8]) -> Result<(Vec<f64>, f64), checkpoint::Ignored> {
    std::fs::write(dir.join("layers-0-1.bin"), bytes).unwrap();
    let rules = race::preset("masters-2").unwrap();
    checkpoint::load(dir, &rules, &PositionIndex::new(&rules), PAIR)
}

#[test]
fn a_checkpoint_loads_for_its_own_rule_set_and_pair_only() {
    let (dir, bytes) = saved("own");
    let rules = race::preset("masters-2").unwrap();
    let index = PositionIndex::new(&rules);
    let (values, residual) = load(&dir, &bytes).unwrap();
    let ranges = index.pair_ranges(PAIR);
    let expected: Vec<f64> = ranges
        .into_iter()
        .flatten()
        .map(|i| i as f64 * 1e-6)
        .collect();
    assert_eq!(values, expected);
    assert_eq!(residual, 1e-11);
    let other = race::preset("ur-2").unwrap();
    let foreign = checkpoint::load(&dir, &other, &PositionIndex::new(&other), PAIR).unwrap_err();
    assert!(
        matches!(foreign, checkpoint::Ignored::Foreign { .. }),
        "{foreign}"
    );
    assert!(foreign.to_string().contains("layers-0-1.bin"), "{foreign}");
    let missing = checkpoint::load(&dir, &rules, &index, LayerPair::new(0, 0)).unwrap_err();
    assert!(matches!(missing, checkpoint::Ignored::Missing), "{missing}");
    std::fs::remove_dir_all(dir).unwrap();
}

proptest! {
    #[test]
    fn a_cut_checkpoint_is_ignored(cut in 0usize..200_000) {
        let (dir, bytes) = saved("cut");
        let cut = cut % bytes.len();
        prop_assert!(load(&dir, &bytes[..cut]).is_err());
    }

    #[test]
    fn a_changed_byte_never_panics(at in 0usize..200_000, byte in any::<u8>()) {
        let (dir, mut bytes) = saved("changed");
        let at = at % bytes.len();
        bytes[at] = byte;
        if let Ok((values, _)) = load(&dir, &bytes) {
            // Loaded: the byte was in the values (or changed nothing that
            // is checked), so at most the one value holding it differs.
            let rules = race::preset("masters-2").unwrap();
            let index = PositionIndex::new(&rules);
            let expected: Vec<f64> = index.pair_ranges(PAIR)
                .into_iter()
                .flatten()
                .map(|i| i as f64 * 1e-6)
                .collect();
            prop_assert_eq!(values.len(), expected.len());
            let differing = values
                .iter()
                .zip(&expected)
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .count();
            prop_assert!(differing <= 1);
        }
    }
}
