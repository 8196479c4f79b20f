//! Game review: the review itself is [`sawah_agents::review`] (so the
//! protocol, the browser and the server offer it too); here, its picture.

pub use sawah_agents::review::*;
use sawah_engine::Player;

/// The game as a picture (SVG): `view`'s win probability before each
/// turn (one point per turn), the luck of each roll as a bar from the
/// middle line (up when it helped `view`), and the mistakes (orange)
/// and blunders (red) of both players marked on the line.
pub fn svg(review: &Review, view: Player) -> Result<String, String> {
    use plotters::prelude::*;
    let chances = review.chances(view);
    let n = chances.len().max(1) as f64;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (900, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{}: {view}'s chances over the game (reference: {})",
                    review.rules, review.reference
                ),
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.5f64..(n + 0.5), 0f64..1f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("turn")
            .y_desc(format!("{view} wins"))
            .y_label_formatter(&|y| format!("{:.0}%", 100.0 * y))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()
            .map_err(|e| e.to_string())?;
        // Luck: a bar from the middle per roll.
        for (k, t) in review.turns.iter().enumerate() {
            let helped = if t.player == view {
                t.luck_pp
            } else {
                -t.luck_pp
            } / 100.0;
            let x = (k + 1) as f64;
            let colour = if helped >= 0.0 {
                GREEN.mix(0.5)
            } else {
                MAGENTA.mix(0.4)
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.3, 0.5), (x + 0.3, (0.5 + helped).clamp(0.0, 1.0))],
                    colour.filled(),
                )))
                .map_err(|e| e.to_string())?;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                chances
                    .iter()
                    .enumerate()
                    .map(|(k, &p)| ((k + 1) as f64, p))
                    .collect::<Vec<_>>(),
                BLUE.stroke_width(2),
            )))
            .map_err(|e| e.to_string())?;
        for (k, t) in review.turns.iter().enumerate() {
            let colour = match t.class {
                Class::Blunder => RED,
                Class::Mistake => RGBColor(255, 140, 0),
                _ => continue,
            };
            chart
                .draw_series(std::iter::once(Circle::new(
                    ((k + 1) as f64, chances[k]),
                    5,
                    colour.filled(),
                )))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}
