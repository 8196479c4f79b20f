//! The one seed mixer every random process here derives its seeds with:
//! SplitMix64's output function (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014), the same on every
//! platform. (Senet's game of the day keeps its own copy in
//! [`crate::senet::daily`]: it is a portable spec that other programs
//! reimplement, and must not change with this one.)

/// SplitMix64's increment, the golden ratio in 64 bits.
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a bijection of `z` whose every output
/// bit depends on every input bit.
///
/// # Examples
///
/// The first output of SplitMix64 seeded with 0 (state 0 + [`GAMMA`]):
///
/// ```
/// use sawah_engine::seed::{GAMMA, mix64};
/// assert_eq!(mix64(GAMMA), 0xe220_a839_7b1d_cdaf);
/// ```
#[inline]
pub fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
