//! Combinations of bits: binomial coefficients and the combinatorial number
//! system (colex order), which ranks a set of `k` elements among `n` as
//! `Σ C(pos_i, i)` over its elements in increasing order, `i` from 1. The
//! race family's position index, Senet's endgame index and the count of
//! valid positions all rank with it.

/// The largest `n` the table covers (sets are bits of a `u32`).
pub const MAX_N: usize = 32;

/// `BINOMIAL[n][k]` = `C(n, k)` for `n, k ≤ 32` (0 for `k > n`).
pub const BINOMIAL: [[u64; MAX_N + 1]; MAX_N + 1] = binomials();

const fn binomials() -> [[u64; MAX_N + 1]; MAX_N + 1] {
    let mut table = [[0u64; MAX_N + 1]; MAX_N + 1];
    let mut n = 0;
    while n <= MAX_N {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
}

/// `C(n, k)` for `n ≤ 32` (0 for `k > n`).
#[inline]
pub fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
}

/// The colex rank of the set `bits` among the sets of its size.
#[inline(always)]
pub fn colex_rank(bits: u32) -> u64 {
    let mut rank = 0;
    let mut rest = bits;
    let mut i = 1;
    while rest != 0 {
        rank += BINOMIAL[rest.trailing_zeros() as usize][i];
        rest &= rest - 1;
        i += 1;
    }
    rank
}

/// The set of `k` elements among `0..n` with colex rank `rank` (which must
/// be below `C(n, k)`).
#[inline]
pub fn colex_unrank(mut rank: u64, n: usize, k: usize) -> u32 {
    let mut bits = 0;
    let mut top = n;
    for i in (1..=k).rev() {
        // The largest c < top with C(c, i) ≤ rank.
        let mut c = top - 1;
        while BINOMIAL[c][i] > rank {
            c -= 1;
        }
        rank -= BINOMIAL[c][i];
        bits |= 1 << c;
        top = c;
    }
    bits
}

/// Every set of `k` bits among the low `n`, in increasing (colex) order.
pub fn combinations(n: u32, k: u32) -> impl Iterator<Item = u32> {
    let first = if k == 0 { 0u64 } else { (1u64 << k) - 1 };
    let limit = 1u64 << n;
    let mut next = Some(first).filter(|&f| f < limit || (k == 0));
    std::iter::from_fn(move || {
        let current = next?;
        next = if current == 0 {
            None
        } else {
            // Gosper's hack: the next larger number with the same popcount.
            let low = current & current.wrapping_neg();
            let ripple = current + low;
            let candidate = (((ripple ^ current) >> 2) / low) | ripple;
            (candidate < limit).then_some(candidate)
        };
        Some(current as u32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `C(n, k)` by the product formula, the reference for the table.
    fn product(n: u64, k: u64) -> u128 {
        if k > n {
            return 0;
        }
        (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
    }

    #[test]
    fn the_table_is_the_product_formula() {
        for n in 0..=MAX_N {
            for k in 0..=MAX_N {
                assert_eq!(
                    u128::from(binomial(n, k)),
                    product(n as u64, k as u64),
                    "C({n},{k})"
                );
            }
        }
        assert_eq!(binomial(30, 15), 155_117_520);
    }

    #[test]
    fn combinations_come_in_colex_order_and_ranks_count_them() {
        assert_eq!(
            combinations(4, 2).collect::<Vec<_>>(),
            vec![0b0011, 0b0101, 0b0110, 0b1001, 0b1010, 0b1100]
        );
        assert_eq!(combinations(3, 0).collect::<Vec<_>>(), vec![0]);
        assert_eq!(combinations(3, 3).collect::<Vec<_>>(), vec![0b111]);
        for n in 0..=12u32 {
            for k in 0..=n {
                let all: Vec<u32> = combinations(n, k).collect();
                assert_eq!(
                    all.len() as u64,
                    binomial(n as usize, k as usize),
                    "{n} {k}"
                );
                for (rank, &bits) in all.iter().enumerate() {
                    assert_eq!(colex_rank(bits), rank as u64);
                    assert_eq!(colex_unrank(rank as u64, n as usize, k as usize), bits);
                }
            }
        }
    }

    #[test]
    fn rank_and_unrank_invert_each_other_on_large_sets() {
        for bits in [0u32, 1, 0x8000_0001, 0xffff_ffff, 0x1234_5678, 0x7fff_0000] {
            let k = bits.count_ones() as usize;
            assert_eq!(colex_unrank(colex_rank(bits), 32, k), bits);
        }
    }
}
