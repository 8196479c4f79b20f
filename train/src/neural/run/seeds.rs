//! Every random stream of a run, derived from its seed and the round (or
//! evaluation) it belongs to, so a resumed run draws what the uninterrupted
//! one would have.

/// The seed of stream `(a, b)` of the run seeded with `seed`.
pub(super) fn mix(seed: u64, a: u64, b: u64) -> u64 {
    use sawah_engine::seed::{GAMMA, mix64};
    mix64(seed ^ a.wrapping_mul(GAMMA) ^ b.wrapping_mul(0xd1b5_4a32_d192_ed03))
}
