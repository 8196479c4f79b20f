//! How far a twin pair's values may drift before one of the moves left out
//! of its candidates could beat one of them: what lets a Bellman pass take
//! a twin pair's candidates instead of generating its moves again.
//!
//! When a Bellman pass generates every move of a twin pair and records each
//! roll's `width` best, it also sees the gap between the last candidate and
//! the best move left out (the smallest over both positions' rolls). Every
//! value changes by at most the largest change of each sweep that wrote
//! it, so after sweeps whose largest changes add up to `D`, a left-out
//! successor has gained at most `D` on a candidate's, and a candidate lost
//! at most `D`: while `2·D` is less than the gap, the best move of every
//! roll is still among the candidates, and the Bellman operator over them
//! is the Bellman operator over every move. A later pass then reads only
//! the candidates of that pair (a few values instead of generating and
//! ranking every move), and its residual is still `max |T(V) − V|` over
//! every move; the pairs whose margin has run out are generated again and
//! measured anew.
//!
//! The same bytes, measured against the runner-up among the candidates
//! instead of the best move left out, let a sweep over the candidates read
//! a twin pair's chosen candidates alone (`ChoiceMargins` in the solver).
//!
//! A margin is one byte: the pass that measured it (high nibble, the
//! passes from [`LAST_PASS`] on sharing the last number and the drift at
//! the start of the first of them, which only makes the test stricter) and
//! half the gap rounded down to a power of 4 (low nibble: `m` for at least
//! `4^-m`, 1 to 14; 0 for no margin, 15 for no move left out).

/// The last pass number a margin records; later passes share it.
pub const LAST_PASS: usize = 15;
/// Low nibble: no margin at all (or never measured).
const NONE: u8 = 0;
/// Low nibble: every move is a candidate, so none can overtake them.
const EVERY_MOVE: u8 = 15;
/// The smallest half gap a margin keeps is `4^-SMALLEST`.
const SMALLEST: u8 = 14;
/// Rounding in the values and in the sum of the changes, well above what
/// f64 arithmetic on probabilities can accumulate over one solve.
const SLACK: f64 = 1e-12;

/// The margin measured at `pass` for a `gap` (last candidate minus the
/// best move left out; infinite when nothing was left out).
pub fn encode(pass: usize, gap: f64) -> u8 {
    let pass = (pass.min(LAST_PASS) as u8) << 4;
    if gap == f64::INFINITY {
        return pass | EVERY_MOVE;
    }
    let half = gap / 2.0;
    // The binary exponent `e` of `half` (2^e <= half < 2^(e+1)) gives the
    // smallest `m` with `half >= 4^-m`: `m = ceil(-e / 2)`, at least 1.
    // Sweeps measure a margin per twin pair, so this avoids a loop.
    // (Also no margin for a NaN gap.)
    let smallest = 0.25f64.powi(i32::from(SMALLEST));
    if half
        .partial_cmp(&smallest)
        .is_none_or(|order| order.is_lt())
    {
        return pass | NONE;
    }
    let exponent = ((half.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let m = ((1 - exponent) >> 1).clamp(1, i32::from(SMALLEST));
    pass | m as u8
}

/// [`holds`] for every margin byte, once per pass (the test then costs a
/// look-up per twin pair).
pub fn holding(drift: f64, drift_at: &[f64]) -> [bool; 256] {
    std::array::from_fn(|margin| holds(margin as u8, drift, drift_at))
}

/// Whether a pair measured with `margin` still has its best moves among
/// its candidates, now that the values have drifted by `drift` in all
/// (the sum of every sweep's largest change), `drift_at[k]` being the drift
/// at the start of the pass that recorded margins with number `k`.
fn holds(margin: u8, drift: f64, drift_at: &[f64]) -> bool {
    match margin & 0x0f {
        NONE => false,
        EVERY_MOVE => true,
        m => {
            let Some(&then) = drift_at.get(usize::from(margin >> 4)) else {
                return false;
            };
            drift - then + SLACK < 0.25f64.powi(i32::from(m))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_margin_rounds_half_the_gap_down_to_a_power_of_four() {
        // Half of 0.6 is 0.3: at least 4^-1.
        assert_eq!(encode(0, 0.6), 1);
        // Half of 0.4 is 0.2: at least 4^-2 = 0.0625, not 4^-1.
        assert_eq!(encode(2, 0.4), 0x22);
        assert_eq!(encode(1, f64::INFINITY), 0x1f);
        assert_eq!(encode(0, 0.0), 0);
        assert_eq!(encode(0, 1e-9), 0);
        assert_eq!(encode(40, 0.6), 0xf1);
    }

    /// The loop `encode` replaced: the first power of 4 that half the gap
    /// reaches.
    fn encode_by_loop(pass: usize, gap: f64) -> u8 {
        let pass = (pass.min(LAST_PASS) as u8) << 4;
        if gap == f64::INFINITY {
            return pass | EVERY_MOVE;
        }
        let half = gap / 2.0;
        let mut step = 0.25;
        for m in 1..=SMALLEST {
            if half >= step {
                return pass | m;
            }
            step *= 0.25;
        }
        pass | NONE
    }

    proptest::proptest! {
        #[test]
        fn encoding_by_the_exponent_agrees_with_the_loop(
            mantissa in 1.0f64..2.0,
            exponent in -40i32..4,
            pass in 0usize..20,
        ) {
            let gap = mantissa * 2f64.powi(exponent);
            proptest::prop_assert_eq!(encode(pass, gap), encode_by_loop(pass, gap));
        }
    }

    #[test]
    fn encoding_is_exact_at_powers_of_four() {
        for exponent in -40..4 {
            for gap in [2f64.powi(exponent), 2f64.powi(exponent) * (1.0 - 1e-15)] {
                assert_eq!(encode(3, gap), encode_by_loop(3, gap), "gap {gap:e}");
            }
        }
        for gap in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(encode(3, gap), encode_by_loop(3, gap), "gap {gap:e}");
        }
    }

    #[test]
    fn a_margin_holds_while_the_drift_since_its_pass_is_smaller() {
        let drift_at = [0.0, 0.5, 0.7];
        // Measured at pass 1 (drift 0.5) with half gap at least 1/16.
        let margin = encode(1, 0.2);
        assert!(holds(margin, 0.55, &drift_at));
        assert!(!holds(margin, 0.5625, &drift_at));
        assert!(!holds(margin, 0.6, &drift_at));
        assert!(holds(encode(2, f64::INFINITY), 100.0, &drift_at));
        assert!(!holds(encode(0, 0.0), 0.0, &drift_at));
        // A pass number with no drift recorded never holds.
        assert!(!holds(encode(5, 0.2), 0.7, &drift_at));
    }
}
