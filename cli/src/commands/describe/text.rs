//! `sawah moves` and `sawah rules`: legal moves and rule sets, for people
//! and as JSON.

use crate::commands::bot::lines;
use anyhow::{Context, Result, bail};
use sawah_engine::json::PositionJson;
use sawah_engine::race::RuleSet;
use sawah_engine::registry::Registry;
use sawah_engine::{AnyGame, Player, notation, with_game};
use sawah_protocol::messages::{LegalMovesRequest, Request, Response};
use sawah_workflows::render::{Render, both_routes};

/// `sawah moves`: the legal moves of a position for a roll, each with the
/// position after it (as the protocol's `legal_moves` with `--json`).
pub fn moves(
    registry: &mut Registry,
    rules: Option<&str>,
    position: &str,
    roll: u8,
    json: bool,
) -> Result<()> {
    let (game, position_json) = registry
        .parse_position_text(position)
        .context("cannot read --position")?;
    if let Some(name) = rules {
        let wanted = registry.resolve(name)?;
        if wanted.name() != game.name() {
            bail!(
                "--rules is {} but the position is for {}",
                wanted.name(),
                game.name()
            );
        }
    }
    if json {
        let request = Request::LegalMoves(LegalMovesRequest {
            position: position_json,
            roll,
        });
        let answer = lines::Bot::new(registry.clone()).answer(request, None);
        println!("{}", Response::new(None, answer).line());
        return Ok(());
    }
    with_game!(&game, g => print_moves(g, &position_json, roll))
}

fn print_moves<G: Render>(game: &G, json: &PositionJson, roll: u8) -> Result<()> {
    let position = game
        .position_from_json(json)
        .context("cannot read --position")?;
    let possible: Vec<u8> = game.dice().outcomes().map(|(r, _)| r).collect();
    if !possible.contains(&roll) {
        bail!(
            "roll {roll} is not possible in {}: rolls are {possible:?}",
            game.name()
        );
    }
    println!("{}", game.board(&position, Player::Light));
    let legal = game.legal_moves(&position, roll);
    let mover = game.turn(&position);
    if legal.is_empty() {
        let next = game.pass(&position);
        println!("{mover} rolls {roll}: no legal move, the turn passes");
        println!("  => {}", notation::format(&game.position_to_json(&next)));
        return Ok(());
    }
    println!("{mover} rolls {roll}: {} legal move(s)", legal.len());
    for &mv in legal.iter() {
        let step = game.apply(&position, mv);
        println!(
            "  {:<22} {:<28} => {}",
            game.describe_move(mv),
            game.move_notes(&position, mv).join(", "),
            notation::format(&game.position_to_json(&step.position))
        );
    }
    Ok(())
}

/// `sawah rules`: every rule set, one line each, or one in full (with both
/// players' square numbers on the board), or its JSON export.
pub fn describe_rules(registry: &mut Registry, name: Option<&str>, json: bool) -> Result<()> {
    let Some(name) = name else {
        if json {
            println!("{}", serde_json::json!(registry.names()));
        } else {
            for game in registry.games() {
                println!("{:<16} {}", game.name(), game.description());
            }
        }
        return Ok(());
    };
    let game = registry.resolve(name)?;
    if json {
        let export = with_game!(&game, g => g.rules_export());
        println!("{}", serde_json::to_string_pretty(&export)?);
        return Ok(());
    }
    match &game {
        AnyGame::Race(rules) => describe_race(rules),
        AnyGame::Senet(senet) => {
            println!("senet: {}", game.description());
            println!("{}", senet.intro(Player::Light));
            println!(
                "\nThe start:\n{}",
                senet.board(&senet.start(), Player::Light)
            );
        }
    }
    Ok(())
}

/// `n` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st, 22nd, 113th.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn describe_race(rules: &RuleSet) {
    let marked: Vec<String> = (1..=rules.route_len())
        .filter(|&s| rules.is_marked_square(Player::Light, s))
        .map(|s| s.to_string())
        .collect();
    println!("{}: {}", rules.name(), rules.spec().description);
    println!("  pieces per side: {}", rules.pieces());
    println!(
        "  route: {} squares, borne off on the exact {} step",
        rules.route_len(),
        ordinal(u32::from(rules.off()))
    );
    println!(
        "  marks on squares {} ({}{})",
        marked.join(", "),
        if rules.marks_give_extra_roll() {
            "extra roll"
        } else {
            "no extra roll"
        },
        if rules.marks_are_safe() {
            ", safe"
        } else {
            ", not safe"
        },
    );
    if rules.captures_give_extra_roll() {
        println!("  a capture gives another roll");
    }
    let dice: Vec<String> = rules
        .dice()
        .outcomes()
        .map(|(roll, p)| format!("{roll}: {p}"))
        .collect();
    println!("  dice: {}", dice.join(", "));
    println!(
        "\nthe board, light at the bottom: each square's number on light's route / on dark's route (- where the route does not pass), * on the marks:\n{}",
        both_routes(rules)
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordinals_take_their_english_suffixes() {
        let written: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 15, 21, 22, 23, 101, 111, 112]
            .into_iter()
            .map(super::ordinal)
            .collect();
        assert_eq!(
            written,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "15th", "21st", "22nd", "23rd",
                "101st", "111th", "112th"
            ]
        );
    }
}
