//! An Elo table as a terminal shows it: columns that fit the terminal's
//! width (the agent's name cut with `…` when the line would not fit), the
//! paragraphs wrapped, forfeits one line each; the head-to-head grid and
//! the method stay in the folder's files (elo.md, crosstable.csv, the
//! SVG), which the last line names. Markdown goes to files, this to the
//! terminal.

use crate::columns::wrap_to;
use sawah_eval::ratings::report::{EloTable, Row};
use std::fmt::Write as _;

/// The narrowest agent column: below it, names are cut regardless.
const NAME_MIN: usize = 8;

/// `text` cut to `width` characters, `…` marking the cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// A row's figures after the name: Elo and interval, games, score,
/// forfeits (and the adjusted Elo in a luck-adjusted table).
fn figures(row: &Row, adjusted: bool) -> String {
    let mut out = format!(
        "{:>5.0} {:>12} {:>6} {:>5.1}% {:>3}",
        row.elo,
        format!("{:.0} to {:.0}", row.ci_low, row.ci_high),
        row.games,
        100.0 * row.score,
        row.failures
    );
    if adjusted && let Some(a) = &row.adjusted {
        let _ = write!(
            out,
            " {:>6.0} {:>12}",
            a.elo,
            format!("{:.0} to {:.0}", a.ci_low, a.ci_high)
        );
    }
    out
}

/// The table for a terminal `width` columns wide; `folder` is where its
/// files were written, when they were.
pub fn terminal(table: &EloTable, width: usize, folder: Option<&std::path::Path>) -> String {
    let adjusted = table.luck.is_some();
    let mut header = format!(
        "{:>5} {:>12} {:>6} {:>6} {:>3}",
        "Elo", "95% interval", "games", "score", "ff."
    );
    if adjusted {
        let _ = write!(header, " {:>6} {:>12}", "adj.", "adj. interval");
    }
    let longest = table
        .rows
        .iter()
        .map(|r| r.agent.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    // "RR. " before the name, a space after it.
    let room = width.saturating_sub(4 + 1 + header.chars().count());
    let name_width = longest.min(room).max(NAME_MIN);
    let mut out = String::new();
    let _ = writeln!(out, "{:>2}. {:<name_width$} {header}", "#", "agent");
    for (rank, row) in table.rows.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>2}. {:<name_width$} {}",
            rank + 1,
            cut(&row.agent, name_width),
            figures(row, adjusted)
        );
    }
    out.push('\n');
    let paragraph = format!(
        "{} games of {}. Moving first is worth {:+.0} Elo ({:+.0} to {:+.0}). {} ff.: games forfeited.",
        table.games,
        table.rules,
        table.first_move_elo.0,
        table.first_move_elo.1,
        table.first_move_elo.2,
        table.scale_text().replace('`', "")
    );
    let _ = writeln!(out, "{}", wrap_to(&paragraph, width, "", ""));
    if !table.forfeits.is_empty() {
        let _ = writeln!(out, "\nForfeits (the first message of each kind):");
        for agent in &table.forfeits {
            for kind in &agent.kinds {
                let line = format!(
                    "{}: {} {}: {}",
                    agent.agent, kind.games, kind.kind, kind.first
                );
                let _ = writeln!(out, "{}", wrap_to(&line, width, "  ", "      "));
            }
        }
    }
    if let Some(folder) = folder {
        let line = format!(
            "Head to head, the method and every figure: {}/elo.md (also elo.csv, crosstable.csv, elo.json, elo.svg).",
            folder.display()
        );
        let _ = writeln!(out, "\n{}", wrap_to(&line, width, "", ""));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_agents::FailureKind;
    use sawah_engine::Player;
    use sawah_eval::arena::gamelog::AgentFailure;
    use sawah_eval::arena::results::{GameEnding, GameRecord};
    use sawah_eval::ratings::report::{TableOptions, elo_table};
    use std::collections::HashMap;

    /// A gauntlet with a long-named bot that forfeits with a long message.
    fn table() -> EloTable {
        let bot = "neural:model=/a/very/long/path/to/some/models/folder/mybot-hard.safetensors:depth=3:focus=2";
        let mut games = Vec::new();
        for s in 0..40u64 {
            for level in ["easy", "medium", "hard"] {
                let failure = (s % 13 == 0).then(|| AgentFailure {
                    seat: Player::Light,
                    kind: Some(FailureKind::Malformed),
                    message: format!("{bot}: answered a move of the wrong shape: {{\"from\":\"2\",\"to\":\"4\"}}; a move is {{\"from\":SQUARE,\"to\":SQUARE or \"off\"}} with numbers for squares, one of the request's \"moves\": {{\"from\":2,\"to\":4}}"),
                });
                let winner = if failure.is_some() || s % 3 == 0 {
                    Player::Dark
                } else {
                    Player::Light
                };
                games.push(GameRecord {
                    rules: "ur".into(),
                    light: bot.into(),
                    dark: level.into(),
                    pair: s,
                    seed: s,
                    ending: GameEnding::of(Some(winner), failure.as_ref()),
                    winner: Some(winner),
                    length: 10,
                    moves: vec![],
                    failure,
                    luck: None,
                });
            }
        }
        let options = TableOptions {
            anchor: (None, 0.0),
            known: vec![
                ("easy".into(), 700.0),
                ("medium".into(), 900.0),
                ("hard".into(), 1100.0),
            ],
            ..TableOptions::default()
        };
        elo_table("ur", &games, &[bot.to_string()], &options, &HashMap::new()).unwrap()
    }

    #[test]
    fn every_line_fits_the_terminal_and_every_agent_has_a_row() {
        let table = table();
        for width in [80, 100, 60] {
            let text = terminal(&table, width, Some(std::path::Path::new("runs/open")));
            for line in text.lines() {
                assert!(line.chars().count() <= width, "{width}: {line}");
            }
            assert_eq!(text.lines().filter(|l| l.contains(". ")).take(5).count(), 5);
            assert!(text.contains("malformed"), "{text}");
            assert!(
                !text.contains('`') && !text.contains("| "),
                "no Markdown: {text}"
            );
            assert!(text.contains("runs/open/elo.md"), "{text}");
        }
        let text = terminal(&table, 80, None);
        assert!(text.contains("mybot-hard") || text.contains("…"), "{text}");
    }
}
