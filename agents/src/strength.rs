//! A player's strength from their mean loss per decision: an Elo estimate
//! on a rule set's calibration scale (models/ELO.md, random = 0).
//!
//! The scale's points are the agents whose loss per decision and Elo were
//! both measured: the shipped levels (their manifest entries'
//! `measured.elo`, with `measured.loss_per_move`) and the manifest's
//! `anchors` (random and perfect play). Losses depend on what measures
//! them, so there are two scales ([`Scale`]): losses by the solved table
//! (for exact reviews), and losses against the review's default reference,
//! the hard level searching one ply deeper (for reviews without a table:
//! Senet, and every rule set in a browser). Between two points the
//! Elo is interpolated linearly in the loss; a loss above random play's is
//! reported as random play's level (0), since the scale has no point there.
//! Where a level measured above perfect play (within its interval), the
//! scale takes the higher Elo, so a smaller loss never means a lower Elo.
//!
//! A review measured by another reference has no scale.

use crate::manifest::Manifest;
use serde::Serialize;

/// What measured the losses of a scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Perfect play from the solved table (`loss_per_move`).
    Table,
    /// The review's default reference without a table
    /// (`loss_per_move_by_reference`).
    Reference,
}

impl Scale {
    /// The manifest key of the losses on this scale.
    pub fn key(self) -> &'static str {
        match self {
            Scale::Table => "loss_per_move",
            Scale::Reference => "loss_per_move_by_reference",
        }
    }

    /// A level's loss per decision on this scale, where it was measured.
    pub fn loss_of(self, measured: &crate::manifest::Measured) -> Option<f64> {
        match self {
            Scale::Table => measured.loss_per_move,
            Scale::Reference => measured.loss_per_move_by_reference,
        }
    }
}

/// One point of the scale.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    /// The agent ("random", "easy", "perfect").
    pub name: String,
    /// Its Elo in the calibration table.
    pub elo: f64,
    /// Its mean loss per decision, in percentage points.
    pub loss_pp: f64,
}

/// A rule set's scale from loss per decision to Elo.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The rule set.
    pub rules: String,
    /// The points, by loss ascending (Elo descending).
    points: Vec<Point>,
}

/// The fewest decisions a strength estimate is given for. A mean loss is
/// made mostly of rare large mistakes, so over a handful of decisions its
/// spread is not known at all: three decisions without a mistake would
/// claim a range of zero width.
pub const MIN_DECISIONS: u64 = 20;

/// A strength estimate.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Estimate {
    /// The Elo the mean loss stands for.
    pub elo: f64,
    /// The 95% range, from the mean loss's standard error (the whole scale
    /// below [`MIN_DECISIONS`]).
    pub low: f64,
    /// See [`Estimate::low`].
    pub high: f64,
    /// The estimate in words: "played like about 730 Elo (610 to 800):
    /// between medium (808) and easy (594)".
    pub text: String,
}

impl Calibration {
    /// The scale of `rules` from a manifest, with losses measured as
    /// `scale` says, if it has at least two such points.
    pub fn from_manifest(manifest: &Manifest, rules: &str, scale: Scale) -> Option<Calibration> {
        let mut points: Vec<Point> = manifest
            .levels
            .iter()
            .filter(|l| l.rules == rules)
            .filter_map(|l| {
                Some(Point {
                    name: l.level.clone(),
                    elo: l.measured.elo?,
                    loss_pp: 100.0 * scale.loss_of(&l.measured)?,
                })
            })
            .chain(
                manifest
                    .anchors
                    .iter()
                    .filter(|a| a.rules == rules)
                    .filter_map(|a| {
                        let loss = match scale {
                            Scale::Table => a.loss_per_move,
                            Scale::Reference => a.loss_per_move_by_reference,
                        };
                        Some(Point {
                            name: a.agent.clone(),
                            elo: a.elo,
                            loss_pp: 100.0 * loss?,
                        })
                    }),
            )
            .filter(|p| p.elo.is_finite() && p.loss_pp.is_finite() && p.loss_pp >= 0.0)
            .collect();
        Calibration::new(rules, std::mem::take(&mut points))
    }

    /// A scale through `points` (at least two with different losses).
    pub fn new(rules: &str, mut points: Vec<Point>) -> Option<Calibration> {
        points.sort_by(|a, b| a.loss_pp.total_cmp(&b.loss_pp));
        points.dedup_by(|b, a| a.loss_pp == b.loss_pp);
        if points.len() < 2 {
            return None;
        }
        // Elo never rises with the loss.
        for k in (0..points.len() - 1).rev() {
            points[k].elo = points[k].elo.max(points[k + 1].elo);
        }
        Some(Calibration {
            rules: rules.to_string(),
            points,
        })
    }

    /// The scale's points, by loss ascending.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// The Elo of a mean loss of `loss_pp` per decision.
    ///
    /// # Examples
    ///
    /// A scale through perfect play (no loss, 1100 Elo) and random play
    /// (10 points a decision, 0 Elo): between them the Elo is linear in the
    /// loss, and past random play it stays at random play's level.
    ///
    /// ```
    /// use sawah_agents::strength::{Calibration, Point};
    ///
    /// let point = |name: &str, elo, loss_pp| Point { name: name.into(), elo, loss_pp };
    /// let scale =
    ///     Calibration::new("ur", vec![point("random", 0.0, 10.0), point("perfect", 1100.0, 0.0)])
    ///         .unwrap();
    /// assert_eq!(scale.points()[0].name, "perfect");
    /// assert_eq!(scale.elo(5.0), 550.0);
    /// assert_eq!(scale.elo(0.0), 1100.0);
    /// assert_eq!(scale.elo(25.0), 0.0);
    ///
    /// // One point is no scale.
    /// assert!(Calibration::new("ur", vec![point("random", 0.0, 10.0)]).is_none());
    /// ```
    pub fn elo(&self, loss_pp: f64) -> f64 {
        let points = &self.points;
        let first = &points[0];
        let last = &points[points.len() - 1];
        if loss_pp <= first.loss_pp {
            return first.elo;
        }
        if loss_pp >= last.loss_pp {
            return last.elo;
        }
        let k = points.partition_point(|p| p.loss_pp <= loss_pp);
        let (a, b) = (&points[k - 1], &points[k]);
        let t = (loss_pp - a.loss_pp) / (b.loss_pp - a.loss_pp);
        a.elo + t * (b.elo - a.elo)
    }

    /// The estimate for a player with `decisions` decisions of mean loss
    /// `mean_pp` and standard deviation `sd_pp`; `None` without decisions.
    /// Below [`MIN_DECISIONS`] the range is the whole scale and the text
    /// says that there are too few decisions to place the player.
    pub fn estimate(&self, mean_pp: f64, sd_pp: f64, decisions: u64) -> Option<Estimate> {
        if decisions == 0 || !mean_pp.is_finite() {
            return None;
        }
        let elo = self.elo(mean_pp);
        if decisions < MIN_DECISIONS {
            let (low, high) = (self.points[self.points.len() - 1].elo, self.points[0].elo);
            return Some(Estimate {
                elo,
                low,
                high,
                text: format!(
                    "played too few decisions ({decisions}) for a strength estimate; it takes at least {MIN_DECISIONS}"
                ),
            });
        }
        let half = 1.96 * sd_pp / (decisions as f64).sqrt();
        let (low, high) = (
            self.elo(mean_pp + half),
            self.elo((mean_pp - half).max(0.0)),
        );
        let place = self.place(mean_pp);
        let text = format!(
            "played like about {:.0} Elo ({:.0} to {:.0}, {decisions} decisions): {place}",
            elo, low, high
        );
        Some(Estimate {
            elo,
            low,
            high,
            text,
        })
    }

    /// Where a loss lies among the points, in words.
    fn place(&self, loss_pp: f64) -> String {
        let points = &self.points;
        let last = &points[points.len() - 1];
        if loss_pp >= last.loss_pp {
            return format!(
                "at or below {}'s level (its loss is {:.2} pp per decision)",
                last.name, last.loss_pp
            );
        }
        if loss_pp <= points[0].loss_pp {
            return format!("like {}", points[0].name);
        }
        let k = points.partition_point(|p| p.loss_pp <= loss_pp);
        let (a, b) = (&points[k - 1], &points[k]);
        format!(
            "between {} ({:.0}) and {} ({:.0})",
            a.name, a.elo, b.name, b.elo
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scale() -> Calibration {
        let point = |name: &str, elo: f64, loss_pp: f64| Point {
            name: name.to_string(),
            elo,
            loss_pp,
        };
        Calibration::new(
            "ur",
            vec![
                point("random", 0.0, 1.17),
                point("easy", 594.0, 0.698),
                point("perfect", 1050.0, 0.0),
                point("medium", 808.0, 0.386),
                point("hard", 1045.0, 0.019),
            ],
        )
        .unwrap()
    }

    #[test]
    fn each_point_maps_to_its_elo_and_between_them_linearly() {
        let s = scale();
        for p in s.points() {
            assert_eq!(s.elo(p.loss_pp), p.elo, "{}", p.name);
        }
        let mid = (0.386 + 0.698) / 2.0;
        assert!((s.elo(mid) - (808.0 + 594.0) / 2.0).abs() < 1e-9);
        assert_eq!(s.elo(5.0), 0.0, "beyond random: random's level");
        // Monotone: more loss, no more Elo.
        let mut last = f64::INFINITY;
        for k in 0..200 {
            let elo = s.elo(f64::from(k) * 0.01);
            assert!(elo <= last);
            last = elo;
        }
    }

    #[test]
    fn a_level_above_perfect_does_not_bend_the_scale() {
        let p = |name: &str, elo, loss_pp| Point {
            name: name.into(),
            elo,
            loss_pp,
        };
        let s = Calibration::new(
            "marks-roll-only",
            vec![
                p("perfect", 1332.0, 0.0),
                p("hard", 1344.0, 0.0056),
                p("random", 0.0, 1.04),
            ],
        )
        .unwrap();
        assert_eq!(s.elo(0.0), 1344.0);
        assert!(s.elo(0.003) >= s.elo(0.0056));
    }

    #[test]
    fn the_estimate_names_its_neighbours_and_range() {
        let s = scale();
        let e = s.estimate(0.5, 1.5, 40).unwrap();
        assert!(e.low < e.elo && e.elo < e.high, "{e:?}");
        assert!(
            e.text.contains("between medium (808) and easy (594)"),
            "{}",
            e.text
        );
        assert!(s.estimate(0.5, 1.0, 0).is_none());
        let weak = s.estimate(3.0, 1.0, 40).unwrap();
        assert!(weak.text.contains("at or below random"), "{}", weak.text);
        // Three faultless decisions say nothing: the range is the scale.
        let few = s.estimate(0.0, 0.0, 3).unwrap();
        assert_eq!((few.low, few.high), (0.0, 1050.0), "{few:?}");
        assert!(few.text.contains("too few decisions (3)"), "{}", few.text);
        assert!(
            few.text.starts_with("played "),
            "reads after a name: {}",
            few.text
        );
        assert!(Calibration::new("x", vec![]).is_none());
    }
}
