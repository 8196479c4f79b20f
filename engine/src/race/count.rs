//! The exact number of valid positions of a rule set, by counting.

use super::rules::RuleSet;
use crate::player::Player;

/// `C(n, k)` as `u128` (the products below exceed `u64`).
fn binomial(n: u32, k: u32) -> u128 {
    u128::from(crate::combinatorics::binomial(n as usize, k as usize))
}

/// The number of valid positions of `rules` with the side to move fixed.
///
/// A side is a choice of `k` of its private squares, `m` of the shared cells
/// and `s` borne-off pieces with `k + m + s <= P` (the rest wait). Both sides
/// together: the shared cells they hold are disjoint, and they may not both
/// have borne off every piece. So the count is
/// `Σ C(a_L,k1)·C(a_D,k2)·C(c,m1)·C(c−m1,m2)` over all such choices, where
/// `a_L`, `a_D` are the players' private square counts and `c` the shared
/// cells, minus nothing else: every such assignment is a valid position.
pub fn valid_position_count(rules: &RuleSet) -> u128 {
    let p = u32::from(rules.pieces());
    let a_light = rules.private_squares(Player::Light);
    let a_dark = rules.private_squares(Player::Dark);
    let c = rules.shared_cells();
    let mut total = 0u128;
    for k1 in 0..=p.min(a_light) {
        for m1 in 0..=(p - k1).min(c) {
            for s1 in 0..=(p - k1 - m1) {
                let light_ways = binomial(a_light, k1) * binomial(c, m1);
                for k2 in 0..=p.min(a_dark) {
                    for m2 in 0..=(p - k2).min(c - m1) {
                        for s2 in 0..=(p - k2 - m2) {
                            if s1 == p && s2 == p {
                                continue;
                            }
                            total += light_ways * binomial(a_dark, k2) * binomial(c - m1, m2);
                        }
                    }
                }
            }
        }
    }
    total
}

/// The number of positions in each layer, light to move (the side to
/// move fixed, as [`valid_position_count`] counts): `sizes[a][b]` holds
/// the positions where light has borne off `a` pieces and dark `b` (0 for
/// both borne off, which is no position). Counted in `u128`, so the sizes
/// of a rule set far past what an index can number are known without one.
pub fn layer_sizes(rules: &RuleSet) -> Vec<Vec<u128>> {
    let p = u32::from(rules.pieces());
    let a_light = rules.private_squares(Player::Light);
    let a_dark = rules.private_squares(Player::Dark);
    let c = rules.shared_cells();
    let width = p as usize + 1;
    let mut sizes = vec![vec![0u128; width]; width];
    for k1 in 0..=p.min(a_light) {
        for m1 in 0..=(p - k1).min(c) {
            let light_ways = binomial(a_light, k1) * binomial(c, m1);
            for k2 in 0..=p.min(a_dark) {
                for m2 in 0..=(p - k2).min(c - m1) {
                    let ways = light_ways * binomial(a_dark, k2) * binomial(c - m1, m2);
                    for s1 in 0..=(p - k1 - m1) {
                        for s2 in 0..=(p - k2 - m2) {
                            if s1 == p && s2 == p {
                                continue;
                            }
                            sizes[s1 as usize][s2 as usize] += ways;
                        }
                    }
                }
            }
        }
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_sizes_add_up_to_the_count_and_match_the_index() {
        for name in ["ur-2", "ur-3", "masters-3", "ur"] {
            let rules = crate::race::preset(name).unwrap();
            let sizes = layer_sizes(&rules);
            let total: u128 = sizes.iter().flatten().sum();
            assert_eq!(total, valid_position_count(&rules), "{name}");
            let index = crate::race::PositionIndex::new(&rules);
            for (a, row) in sizes.iter().enumerate() {
                for (b, &size) in row.iter().enumerate() {
                    let range = index.layer_range(a as u8, b as u8);
                    assert_eq!(
                        u128::from(range.end - range.start),
                        size,
                        "{name} ({a}, {b})"
                    );
                }
            }
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(16, 0), 1);
        assert_eq!(binomial(3, 4), 0);
        assert_eq!(binomial(30, 15), 155_117_520);
    }
}
