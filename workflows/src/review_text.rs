//! `sawah review` in a terminal: a view that fits 80 columns. The summary
//! per player, then the costly moves (mistakes and blunders) in the
//! notation `sawah play` uses (`5 -> 8`, `enter -> 3`, `14 -> off`), or
//! with `--full` every turn on a line of its own. Files get the Markdown
//! or JSON (`--format md|json`), which are unchanged.

use crate::render::{Render, wrap};
use sawah_agents::review::{Class, Review, Turn};
use sawah_engine::record::{Record, ReplayStep, move_token, replay_from};
use sawah_engine::{Codec, Player};
use std::fmt::Write as _;

/// The widest line the view writes.
pub const COLUMNS: usize = 80;

/// The played and best moves of every turn, in `play`'s notation, found
/// by replaying the record (`None` for a turn whose move is not found:
/// the view then writes the recorded token).
fn notations<G: Render + Codec>(
    game: &G,
    record: &Record,
    review: &Review,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let Ok(start) = record.start_position(game) else {
        return out;
    };
    let mut k = 0;
    let _ = replay_from(game, start, &record.moves, |step: ReplayStep<'_, G>| {
        let shown = |mv: Option<G::Move>| match mv {
            Some(mv) => game.describe_move(mv),
            None => "pass".to_string(),
        };
        let played = shown(step.played);
        let best = review
            .turns
            .get(k)
            .and_then(|turn| {
                step.legal
                    .iter()
                    .find(|&&mv| move_token(game, step.roll, Some(mv)) == turn.best)
                    .map(|&mv| game.describe_move(mv))
            })
            .unwrap_or_else(|| played.clone());
        out.push((played, best));
        k += 1;
    });
    out
}

/// The review as a terminal shows it (see the module's documentation).
pub fn terminal<G: Render + Codec>(
    game: &G,
    record: &Record,
    review: &Review,
    full: bool,
) -> String {
    let moves = notations(game, record, review);
    let mut out = heading(review);
    for player in Player::BOTH {
        let _ = writeln!(out, "\n{}", wrap(&player_summary(review, player), "  "));
    }
    let shown = |k: usize, token: &str, best: bool| -> String {
        moves
            .get(k)
            .map(|(played, better)| if best { better.clone() } else { played.clone() })
            .unwrap_or_else(|| token.to_string())
    };
    let turns: Vec<(usize, &Turn)> = review
        .turns
        .iter()
        .enumerate()
        .filter(|(_, t)| full || matches!(t.class, Class::Mistake | Class::Blunder))
        .collect();
    let _ = writeln!(
        out,
        "\n{}",
        match (turns.is_empty(), full) {
            (true, _) => "No mistakes or blunders on either side.",
            (false, true) => "Every turn: roll, move played, best move, loss, class, luck.",
            (false, false) => "The costly moves (mistakes and blunders); --full shows every turn:",
        }
    );
    for (k, t) in turns {
        let line = turn_line(t, &shown(k, &t.played, false), &shown(k, &t.best, true));
        let _ = writeln!(out, "{}", wrap(&line, "           "));
    }
    out
}

/// The review's first paragraph: the game, its winner and the reference.
fn heading(review: &Review) -> String {
    let mut out = wrap(
        &plain(&format!(
            "Review of a game of {} (won by {}). Reference: {}. Losses and luck in points of win probability.",
            review.rules,
            review.winner_text(),
            review.reference
        )),
        "",
    );
    out.push('\n');
    if let Some(forfeit) = review.forfeit_text() {
        out.push('\n');
        out.push_str(&wrap(&plain(&format!("Forfeit: {forfeit}")), "  "));
        out.push('\n');
    }
    out
}

/// `count` and the noun, plural unless one: `1 mistake`, `2 mistakes`,
/// `3 inaccuracies`.
fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Text for the terminal: Markdown's code marks taken out.
fn plain(text: &str) -> String {
    text.replace('`', "")
}

/// One player's summary: decisions, losses, the classes, luck and strength.
fn player_summary(review: &Review, player: Player) -> String {
    let s = review.summary(player);
    plain(&format!(
        "{}: {}, {:.2} points lost per decision ({:.1} in all); {} best, {} good, {}, {}, {}; luck {:+.1}.{}",
        review.player_name(player),
        counted(s.decisions, "decision", "decisions"),
        s.mean_loss_pp,
        s.total_loss_pp,
        s.best,
        s.good,
        counted(s.inaccuracies, "inaccuracy", "inaccuracies"),
        counted(s.mistakes, "mistake", "mistakes"),
        counted(s.blunders, "blunder", "blunders"),
        s.luck_pp + 0.0,
        s.strength
            .as_ref()
            .map(|e| format!(" It {}.", e.text))
            .unwrap_or_default()
    ))
}

/// One turn's line: the roll, the move played (with the best one and the
/// loss when it lost something), its class and the luck.
fn turn_line(t: &Turn, played: &str, best: &str) -> String {
    if t.class == Class::Forced {
        format!(
            "{:>4} {:<5} rolled {}: {played} (forced)",
            t.turn, t.player, t.roll
        )
    } else if t.loss_pp > 0.0 {
        format!(
            "{:>4} {:<5} rolled {}: {played}, best {best}: -{:.1} {}, luck {:+.1}",
            t.turn,
            t.player,
            t.roll,
            t.loss_pp,
            t.class.name(),
            t.luck_pp + 0.0
        )
    } else {
        format!(
            "{:>4} {:<5} rolled {}: {played} ({}), luck {:+.1}",
            t.turn,
            t.player,
            t.roll,
            t.class.name(),
            t.luck_pp + 0.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_fits_80_columns_and_moves_read_as_play_writes_them() {
        use crate::bots::{BotFiles, native_bot, setup};
        use sawah_engine::DiceSource;
        use sawah_protocol::messages::BotSpec;
        let game = sawah_engine::race::preset("ur").unwrap();
        let mut dice = DiceSource::from_seed(5);
        let mut position = game.start();
        let mut tokens = Vec::new();
        while game.winner(&position).is_none() {
            let roll = dice.roll(game.dice());
            let moves = game.legal_moves(&position, roll);
            let played = (!moves.is_empty()).then(|| moves[dice.below(moves.len())]);
            tokens.push(move_token(&game, roll, played));
            position = match played {
                Some(mv) => game.apply(&position, mv).position,
                None => game.pass(&position),
            };
        }
        let value = serde_json::json!({"rules": "ur", "moves": tokens});
        let record = Record::from_json(&value).unwrap();
        let files = BotFiles::default();
        let setup = setup(&files, false, sawah_protocol::native::Limits::NONE).unwrap();
        let bot = native_bot(sawah_engine::registry::Registry::new(), &setup).unwrap();
        let review = bot
            .review_record(&record, Some(&BotSpec::from("heuristic")), None)
            .unwrap();
        for full in [false, true] {
            let text = terminal(&game, &record, &review, full);
            for line in text.lines() {
                let width = line.chars().count();
                assert!(width <= COLUMNS, "{width} columns: {line}");
            }
            let turns: Vec<&str> = text.lines().filter(|l| l.contains(" rolled ")).collect();
            for line in &turns {
                assert!(line.contains(" -> ") || line.contains("pass"), "{line}");
            }
            if full {
                assert_eq!(turns.len(), review.turns.len(), "{text}");
            } else {
                let costly = review
                    .turns
                    .iter()
                    .filter(|t| matches!(t.class, Class::Mistake | Class::Blunder))
                    .count();
                assert!(costly > 0, "a random player makes mistakes");
                assert_eq!(turns.len(), costly, "{text}");
            }
        }
    }
}
