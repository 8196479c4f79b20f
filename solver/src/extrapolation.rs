//! Extrapolating a policy's evaluation along its slowest error.
//!
//! Once a layer pair's choices settle, the in-place sweeps over them
//! shrink the error by a nearly constant ratio `ρ` per sweep (about 0.78
//! in sawah's and masters-5's larger pairs, steady to ±0.01 for dozens of
//! sweeps): one slow mode is left. A sweep then changes each value by
//! `Δ = (ρ − 1)·e` of its error `e`, so the error left after it is
//! `ρ/(1 − ρ)·Δ`: adding that to every value (once, after a sweep that
//! recorded its `Δ`) removes the mode, and the sweeps go on from the faster
//! ones. Faster modes are not removed, and they are scaled by at most
//! `ρ/(1 − ρ)` (between ×1 and ×4), but by then they are orders of
//! magnitude below the slow one. Nothing about correctness depends on it:
//! the pair still ends only on a pass that reads every candidate and finds
//! `max |T(V) − V|` within the tolerance, and the margins count the values'
//! moves (`margins`).
//!
//! In some pairs the ratios alternate instead (sawah's largest: 0.76 and
//! 0.80–0.85 by turns for a dozen sweeps; masters-5's: 0.66 and 0.75–0.84),
//! a second mode whose error changes sign from sweep to sweep. The ratio
//! over two sweeps is then steady, and the values move along the change of
//! two sweeps by `ρ₂/(1 − ρ₂)`: a mode that alternates shrinks over two
//! sweeps as well, so it is not blown up, as moving along one sweep's
//! change with the one-sweep ratio would (about fivefold).
//!
//! [`Steadiness`] decides when the ratio is steady enough; the changes are
//! recorded in one byte per position ([`encode`]), a sign and a logarithm
//! in eighths of an octave below a scale, so within 6.25% of the change:
//! the extrapolated value then removes at least 15/16 of the mode (a
//! recording in f32 removed no more in practice: the modes just below take
//! over).

/// Ratios that must agree (within [`SPREAD`]) before the ratio counts as
/// steady.
const STEADY_RATIOS: usize = 3;
/// The most sweeps a ratio is taken over (and recorded over).
const MOST_STEPS: usize = 2;
/// Changes kept: enough for [`STEADY_RATIOS`] ratios over [`MOST_STEPS`].
const KEPT: usize = STEADY_RATIOS + MOST_STEPS;
/// How far apart the last ratios may be.
const SPREAD: f64 = 0.02;
/// Ratios at or above this are not extrapolated: `ρ/(1 − ρ)` grows without
/// bound, and with it any error in the recorded changes.
const HIGHEST_RATIO: f64 = 0.95;

/// The largest changes of the last [`KEPT`] sweeps over the same choices,
/// for telling when their ratio holds steady.
#[derive(Debug, Default)]
pub struct Steadiness {
    changes: Vec<f64>,
}

impl Steadiness {
    /// Notes a sweep's largest change (forgetting the oldest kept).
    pub fn note(&mut self, change: f64) {
        if self.changes.len() == KEPT {
            self.changes.remove(0);
        }
        self.changes.push(change);
    }

    /// Forgets the changes (the values or the choices changed otherwise).
    pub fn clear(&mut self) {
        self.changes.clear();
    }

    /// The ratio over `steps` sweeps (1 or 2) of the last change to the
    /// one `steps` before it, when the last [`STEADY_RATIOS`] such ratios
    /// are within [`SPREAD`] of each other and the ratio per sweep is below
    /// [`HIGHEST_RATIO`].
    pub fn ratio_over(&self, steps: usize) -> Option<f64> {
        let needed = STEADY_RATIOS + steps;
        let changes = self
            .changes
            .get(self.changes.len().checked_sub(needed)?..)?;
        if !(1..=MOST_STEPS).contains(&steps) || changes.iter().any(|&c| c.is_nan() || c <= 0.0) {
            return None;
        }
        let ratios = || changes.windows(steps + 1).map(|w| w[steps] / w[0]);
        let latest = ratios().next_back()?;
        let steady = ratios().all(|ratio| (ratio - latest).abs() <= SPREAD);
        (steady && latest < HIGHEST_RATIO.powi(steps as i32)).then_some(latest)
    }

    /// When a ratio is steady, how the next sweeps record their changes
    /// ([`encode`]): over how many sweeps (one when the ratio per sweep is
    /// steady, else two when the ratio over two is), and the scale: twice
    /// the last change per sweep recorded, since every change of those
    /// sweeps is within the last one's, or nearly.
    pub fn recording(&self) -> Option<(usize, f64)> {
        let steps = (1..=MOST_STEPS).find(|&steps| self.ratio_over(steps).is_some())?;
        let last = self.changes.last()?;
        Some((steps, 2.0 * steps as f64 * last))
    }
}

/// Extrapolation across a layer pair's sweeps: the series of their
/// changes ([`Steadiness`]) and the recording under way, if any. The
/// solver asks it how each sweep over the choices should record its
/// changes ([`Extrapolation::recording`]) and tells it each sweep's change;
/// it says when to move the values and by how much.
#[derive(Debug)]
pub struct Extrapolation {
    enabled: bool,
    steadiness: Steadiness,
    /// Over how many sweeps the recording under way runs, its scale, and
    /// how many have recorded.
    under_way: Option<(usize, f64, usize)>,
}

impl Extrapolation {
    /// Extrapolation that moves the values when `enabled` (otherwise it
    /// never asks a sweep to record).
    pub fn new(enabled: bool) -> Extrapolation {
        Extrapolation {
            enabled,
            steadiness: Steadiness::default(),
            under_way: None,
        }
    }

    /// Starts the series again (the choices were revised wholesale).
    pub fn clear(&mut self) {
        self.steadiness.clear();
        self.under_way = None;
    }

    /// Notes the change of a sweep over the candidates: it continues the
    /// series (when it keeps the choices it shrinks the error like a sweep
    /// over them, and when it revises them the change jumps and breaks the
    /// series by itself) but records nothing, so a recording under way is
    /// dropped.
    pub fn note(&mut self, change: f64) {
        self.steadiness.note(change);
        self.under_way = None;
    }

    /// How the next sweep over the choices records its changes, if it
    /// does: the scale ([`encode`]) and whether to add them to the ones
    /// the sweep before recorded.
    pub fn recording(&mut self) -> Option<(f64, bool)> {
        if self.under_way.is_none() && self.enabled {
            self.under_way = self
                .steadiness
                .recording()
                .map(|(steps, scale)| (steps, scale, 0));
        }
        self.under_way.map(|(_, scale, done)| (scale, done > 0))
    }

    /// Notes the change of a sweep over the choices (which recorded as
    /// [`Extrapolation::recording`] said). When it completes a recording
    /// and the ratio held, returns how far to move the values along the
    /// recorded changes ([`factor`]) and their scale; the series then
    /// starts again.
    pub fn after_sweep(&mut self, change: f64) -> Option<(f64, f64)> {
        self.steadiness.note(change);
        let (steps, scale, done) = self.under_way.as_mut()?;
        *done += 1;
        if done < steps {
            return None;
        }
        let (steps, scale) = (*steps, *scale);
        self.under_way = None;
        let ratio = self.steadiness.ratio_over(steps)?;
        self.steadiness.clear();
        Some((factor(ratio), scale))
    }
}

/// How far along the recorded changes to move the values when the sweeps
/// they were recorded over shrink the error by `ratio`: the error left is
/// `ratio/(1 − ratio)` of the change.
pub fn factor(ratio: f64) -> f64 {
    ratio / (1.0 - ratio)
}

/// The byte for "no change worth keeping" (below the range, or none).
const ZERO: u8 = 0x7f;
/// The f64 bits below these are dropped: exponent and three mantissa bits
/// are left, so one step is an eighth of an octave.
const SHIFT: u32 = 49;

/// A change `delta` as one byte, for changes of at most `scale` (larger
/// ones are kept as `scale`): the sign, then how many eighths of an octave
/// it lies below `scale` (0 to 126), or [`ZERO`] when more than that
/// (`2^-15.75 · scale`, about 1.8e-5 of it) or no change.
pub fn encode(delta: f64, scale: f64) -> u8 {
    let top = scale.abs().to_bits() >> SHIFT;
    let own = delta.abs().to_bits() >> SHIFT;
    let steps = top.saturating_sub(own);
    if delta == 0.0 || delta.is_nan() || steps >= u64::from(ZERO) || top == 0 {
        return ZERO;
    }
    let sign = if delta < 0.0 { 0x80 } else { 0 };
    sign | steps as u8
}

/// The change an [`encode`] byte stands for: the middle of its step, so
/// within 6.25% of the change encoded (when it was within `scale`).
pub fn decode(byte: u8, scale: f64) -> f64 {
    let steps = u64::from(byte & 0x7f);
    let top = scale.abs().to_bits() >> SHIFT;
    if steps == u64::from(ZERO) || top <= steps {
        return 0.0;
    }
    let magnitude = f64::from_bits((top - steps) << SHIFT | 1 << (SHIFT - 1));
    if byte & 0x80 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_change_within_the_range_comes_back_within_a_sixteenth(
            scale in 1e-14f64..1.0,
            fraction in 2e-5f64..=1.0,
            negative: bool,
        ) {
            let delta = if negative { -fraction * scale } else { fraction * scale };
            let back = decode(encode(delta, scale), scale);
            prop_assert!((back - delta).abs() <= delta.abs() / 16.0, "{delta} -> {back}");
        }

        #[test]
        fn a_change_never_comes_back_larger_than_the_scale_allows(
            scale in 1e-14f64..1.0,
            delta in -10.0f64..10.0,
        ) {
            let back = decode(encode(delta, scale), scale);
            prop_assert!(back.abs() <= scale * 17.0 / 16.0);
            prop_assert!(back == 0.0 || back.signum() == delta.signum());
        }
    }

    #[test]
    fn tiny_and_zero_changes_are_dropped_and_large_ones_clamped() {
        assert_eq!(decode(encode(0.0, 1e-6), 1e-6), 0.0);
        assert_eq!(decode(encode(1e-12, 1e-6), 1e-6), 0.0);
        assert_eq!(decode(encode(1e-6, 0.0), 0.0), 0.0);
        let clamped = decode(encode(-5e-6, 1e-6), 1e-6);
        assert!((clamped + 1e-6).abs() <= 1e-6 / 16.0, "{clamped}");
    }

    #[test]
    fn the_ratio_counts_once_three_ratios_agree() {
        let mut steadiness = Steadiness::default();
        for change in [1.0, 0.8, 0.64] {
            steadiness.note(change);
            assert_eq!(steadiness.ratio_over(1), None);
            assert_eq!(steadiness.recording(), None);
        }
        steadiness.note(0.64 * 0.79);
        let ratio = steadiness.ratio_over(1).expect("steady");
        assert!((ratio - 0.79).abs() < 1e-12);
        assert_eq!(steadiness.recording(), Some((1, 2.0 * (0.64 * 0.79))));
        // One jump (a revised choice) and it is not steady again until
        // three more ratios agree.
        steadiness.note(0.9);
        assert_eq!(steadiness.ratio_over(1), None);
        assert_eq!(steadiness.ratio_over(2), None);
        steadiness.clear();
        assert_eq!(steadiness.ratio_over(1), None);
        assert_eq!(steadiness.recording(), None);
    }

    #[test]
    fn alternating_ratios_are_steady_over_two_sweeps() {
        let mut steadiness = Steadiness::default();
        let mut change = 1.0;
        for k in 0..4 {
            steadiness.note(change);
            change *= if k % 2 == 0 { 0.84 } else { 0.76 };
            assert_eq!(steadiness.recording(), None, "after {} changes", k + 1);
        }
        steadiness.note(change);
        assert_eq!(steadiness.ratio_over(1), None);
        let ratio = steadiness.ratio_over(2).expect("steady over two");
        assert!((ratio - 0.84 * 0.76).abs() < 1e-12);
        assert_eq!(steadiness.recording(), Some((2, 4.0 * change)));
        // Ratios that drift apart are not steady over two sweeps either.
        let mut drifting = Steadiness::default();
        for change in [1.0, 0.9, 0.7, 0.5, 0.3] {
            drifting.note(change);
        }
        assert_eq!(drifting.recording(), None);
    }

    #[test]
    fn a_recording_runs_over_its_sweeps_and_a_sweep_over_the_candidates_drops_it() {
        let mut extrapolation = Extrapolation::new(true);
        let mut change = 1.0;
        for _ in 0..4 {
            assert_eq!(extrapolation.recording(), None);
            assert_eq!(extrapolation.after_sweep(change), None);
            change *= 0.8;
        }
        // Steady per sweep: one sweep records, then the values move.
        assert_eq!(extrapolation.recording(), Some((2.0 * change / 0.8, false)));
        let (factor, _) = extrapolation.after_sweep(change).expect("extrapolates");
        assert!((factor - 4.0).abs() < 1e-9, "{factor}");
        // Alternating ratios: two sweeps record, the second adding.
        let mut change = 1.0;
        for k in 0..5 {
            assert_eq!(extrapolation.recording(), None);
            assert_eq!(extrapolation.after_sweep(change), None);
            change *= if k % 2 == 0 { 0.84 } else { 0.76 };
        }
        assert!(matches!(extrapolation.recording(), Some((_, false))));
        assert_eq!(extrapolation.after_sweep(change), None);
        assert!(matches!(extrapolation.recording(), Some((_, true))));
        change *= 0.76;
        extrapolation.note(change);
        // A sweep over the candidates in between dropped the recording.
        assert!(matches!(extrapolation.recording(), Some((_, false))));
        // Switched off, nothing records.
        let mut off = Extrapolation::new(false);
        for k in 0..6 {
            assert_eq!(off.recording(), None);
            assert_eq!(off.after_sweep(0.8f64.powi(k)), None);
        }
    }

    #[test]
    fn slow_or_stalled_sweeps_are_not_extrapolated() {
        let mut slow = Steadiness::default();
        for k in 0..5 {
            slow.note(0.97f64.powi(k));
        }
        assert_eq!(slow.recording(), None);
        let mut stalled = Steadiness::default();
        for change in [1.0, 0.0, 0.0, 0.0, 0.0] {
            stalled.note(change);
        }
        assert_eq!(stalled.recording(), None);
        assert!((factor(0.8) - 4.0).abs() < 1e-12);
    }
}
