//! Learning curves: a training run's strength against a fixed opponent,
//! measured every N training games (each point a paired-dice match with
//! its 95% interval), in Elo; where the curve flattens; and the picture
//! (SVG), several runs on one chart so that they can be compared.

use crate::stats::elo_from_score;
use serde::Serialize;

/// The Elo shown for a score of 0 or 1 (where it is unbounded).
pub const ELO_LIMIT: f64 = 800.0;

/// One evaluation: after `games` training games, the run's score against
/// the opponent with its 95% interval, and the same in Elo.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Training games played before the evaluation.
    pub games: u64,
    /// Score against the opponent (0 to 1).
    pub score: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
}

impl CurvePoint {
    /// The Elo difference to the opponent (within ±[`ELO_LIMIT`]).
    pub fn elo(&self) -> f64 {
        bounded_elo(self.score)
    }

    /// The interval in Elo (within ±[`ELO_LIMIT`]).
    pub fn elo_interval(&self) -> (f64, f64) {
        (bounded_elo(self.low), bounded_elo(self.high))
    }
}

fn bounded_elo(score: f64) -> f64 {
    elo_from_score(score).clamp(-ELO_LIMIT, ELO_LIMIT)
}

/// One run's curve against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    /// What the run is called on the chart (its folder's name).
    pub label: String,
    /// The opponent's spec.
    pub opponent: String,
    /// The evaluations, by training games.
    pub points: Vec<CurvePoint>,
}

impl Curve {
    /// The level the curve ends at: the mean Elo of its last `tail` points
    /// (at most the whole curve).
    pub fn final_elo(&self, tail: usize) -> Option<f64> {
        let tail = tail.clamp(1, self.points.len().max(1));
        let last = self.points.get(self.points.len().saturating_sub(tail)..)?;
        (!last.is_empty())
            .then(|| last.iter().map(CurvePoint::elo).sum::<f64>() / last.len() as f64)
    }

    /// Where the curve flattens: the evaluation after the last one whose
    /// 95% interval lies wholly below the final level (the mean of the
    /// last `tail` points), or the first evaluation when none does. From
    /// there on, no evaluation says the run was still below where it
    /// ended. (A point above the final level is noise or an overshoot, not
    /// learning still to come, so it does not move the plateau.) `None`
    /// for an empty curve.
    pub fn plateau(&self, tail: usize) -> Option<&CurvePoint> {
        let level = self.final_elo(tail)?;
        let first = self
            .points
            .iter()
            .rposition(|p| p.elo_interval().1 < level)
            .map_or(0, |k| k + 1);
        self.points.get(first.min(self.points.len() - 1))
    }

    /// A Markdown table: the points with their Elo and interval.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "{} against `{}`\n\n| training games | score | Elo | 95% interval |\n|---:|---:|---:|:---:|\n",
            self.label, self.opponent
        );
        for p in &self.points {
            let (low, high) = p.elo_interval();
            out.push_str(&format!(
                "| {} | {:.1}% | {:+.0} | {:+.0} to {:+.0} |\n",
                p.games,
                100.0 * p.score,
                p.elo(),
                low,
                high
            ));
        }
        out
    }
}

/// The colours of the curves, in order (then repeated).
const COLOURS: [(u8, u8, u8); 6] = [
    (31, 119, 180),
    (214, 39, 40),
    (44, 160, 44),
    (148, 103, 189),
    (255, 127, 14),
    (23, 190, 207),
];

/// The curves on one chart: Elo against the opponent by training games,
/// each point with its 95% interval, and a dashed mark where each curve
/// flattens ([`Curve::plateau`] with `tail` points).
pub fn svg(curves: &[Curve], title: &str, tail: usize) -> Result<String, String> {
    use plotters::prelude::*;
    let points = || curves.iter().flat_map(|c| c.points.iter());
    let max_games = points().map(|p| p.games).max().unwrap_or(1).max(1) as f64;
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in points() {
        let (l, h) = p.elo_interval();
        low = low.min(l);
        high = high.max(h);
    }
    if !low.is_finite() {
        (low, high) = (-100.0, 100.0);
    }
    let margin = ((high - low) * 0.08).max(10.0);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (900, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 17))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..max_games * 1.02, (low - margin)..(high + margin))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("training games")
            .y_desc("Elo against the opponent")
            .x_label_formatter(&|x| thousands(*x))
            .y_label_formatter(&|y| format!("{y:+.0}"))
            .draw()
            .map_err(|e| e.to_string())?;
        for (k, curve) in curves.iter().enumerate() {
            let (r, g, b) = COLOURS[k % COLOURS.len()];
            let colour = RGBColor(r, g, b);
            for p in &curve.points {
                let (l, h) = p.elo_interval();
                let x = p.games as f64;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, l), (x, h)],
                        colour.mix(0.45).stroke_width(1),
                    )))
                    .map_err(|e| e.to_string())?;
            }
            let line: Vec<(f64, f64)> = curve
                .points
                .iter()
                .map(|p| (p.games as f64, p.elo()))
                .collect();
            chart
                .draw_series(std::iter::once(PathElement::new(
                    line.clone(),
                    colour.stroke_width(2),
                )))
                .map_err(|e| e.to_string())?
                .label(format!("{} (vs {})", curve.label, curve.opponent))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(
                    line.iter()
                        .map(|&(x, y)| Circle::new((x, y), 3, colour.filled())),
                )
                .map_err(|e| e.to_string())?;
            if let Some(p) = curve.plateau(tail) {
                // A dashed vertical line: 30 dashes over the height.
                let x = p.games as f64;
                let (bottom, step) = (low - margin, (high - low + 2.0 * margin) / 30.0);
                chart
                    .draw_series((0..30).map(|k| {
                        let y = bottom + step * k as f64;
                        PathElement::new(
                            vec![(x, y), (x, y + 0.6 * step)],
                            colour.mix(0.6).stroke_width(1),
                        )
                    }))
                    .map_err(|e| e.to_string())?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// `1200000` as `1.2M`, `40000` as `40k`.
fn thousands(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.1}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.0}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(games: u64, score: f64, half: f64) -> CurvePoint {
        CurvePoint {
            games,
            score,
            low: score - half,
            high: score + half,
        }
    }

    fn curve(points: Vec<CurvePoint>) -> Curve {
        Curve {
            label: "run".into(),
            opponent: "expectiminimax:depth=2".into(),
            points,
        }
    }

    #[test]
    fn a_rising_curve_flattens_where_the_intervals_reach_its_final_level() {
        // 50%, 55%, 60%, then 64-65% three times: the last level is about
        // +104 Elo, which the 60% point's interval (+35 to +108) holds but
        // the 55% point's (0 to +70) does not.
        let c = curve(vec![
            point(0, 0.50, 0.05),
            point(10_000, 0.55, 0.05),
            point(20_000, 0.60, 0.05),
            point(30_000, 0.64, 0.05),
            point(40_000, 0.65, 0.05),
            point(50_000, 0.645, 0.05),
        ]);
        let level = c.final_elo(3).unwrap();
        assert!((level - 103.7).abs() < 0.5, "{level}");
        assert_eq!(c.plateau(3).unwrap().games, 20_000);
        // A curve still rising at its end flattens only at its last point.
        let rising = curve(vec![
            point(0, 0.5, 0.01),
            point(1, 0.6, 0.01),
            point(2, 0.7, 0.01),
        ]);
        assert_eq!(rising.plateau(1).unwrap().games, 2);
        assert!(curve(vec![]).plateau(3).is_none());
        // A flat curve (about +58 Elo) with one point wholly above it: that
        // point does not say the run was still learning, so the curve is
        // flat from its first point.
        let flat = curve(vec![
            point(0, 0.58, 0.02),
            point(1, 0.59, 0.02),
            point(2, 0.63, 0.02),
            point(3, 0.58, 0.02),
            point(4, 0.59, 0.02),
            point(5, 0.58, 0.02),
        ]);
        assert_eq!(flat.plateau(3).unwrap().games, 0);
    }

    #[test]
    fn scores_of_zero_and_one_are_drawn_at_the_limit() {
        let p = point(5, 1.0, 0.0);
        assert_eq!(p.elo(), ELO_LIMIT);
        assert_eq!(point(5, 0.0, 0.0).elo(), -ELO_LIMIT);
        assert_eq!(point(5, 0.5, 0.0).elo(), 0.0);
    }

    #[test]
    fn the_chart_and_table_name_every_run() {
        let a = curve(vec![point(0, 0.5, 0.03), point(20_000, 0.62, 0.03)]);
        let b = Curve {
            label: "features".into(),
            ..curve(vec![point(0, 0.5, 0.03), point(20_000, 0.66, 0.03)])
        };
        let svg = svg(&[a.clone(), b], "Senet", 1).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("features"), "{svg}");
        assert!(svg.contains("20k"));
        let table = a.markdown();
        assert!(table.contains("| 20000 | 62.0% | +85 |"), "{table}");
    }
}
