//! `sawah play`: a person against the computer in the terminal.

use crate::render;
use sawah_agents::{Agent, RandomAgent};
use sawah_engine::race::{Move, RuleSet};
use sawah_engine::{DiceSource, Player};
use std::io::{self, BufRead, Write};

/// How a game in the terminal is set up.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The side the person plays.
    pub human: Player,
    /// Seed for the dice and the opponent.
    pub seed: u64,
}

/// Asks until the person gives a valid move number; `None` on end of input or quit.
fn ask_move(
    rules: &RuleSet,
    moves: &[Move],
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<Option<Move>> {
    loop {
        write!(output, "  your move [1-{}, q to quit]: ", moves.len())?;
        output.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let answer = line.trim();
        if answer.eq_ignore_ascii_case("q") || answer.eq_ignore_ascii_case("quit") {
            return Ok(None);
        }
        match answer.parse::<usize>() {
            Ok(n) if (1..=moves.len()).contains(&n) => return Ok(Some(moves[n - 1])),
            _ => writeln!(
                output,
                "  {answer:?} is not a move: type a number from 1 to {} ({})",
                moves.len(),
                moves
                    .iter()
                    .map(|&m| render::describe_move(rules, m))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?,
        }
    }
}

fn move_notes(rules: &RuleSet, position: &sawah_engine::race::Position, mv: Move) -> String {
    let outcome = rules.apply(position, mv);
    let mut notes = Vec::new();
    if outcome.captured {
        notes.push("captures");
    }
    if outcome.extra_roll {
        notes.push("rolls again");
    }
    if rules.winner(&outcome.position).is_some() {
        notes.push("wins");
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!("  ({})", notes.join(", "))
    }
}

/// Plays one game; returns the winner, or `None` if the person quit or input ended.
pub fn play(
    rules: &RuleSet,
    options: &PlayOptions,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<Option<Player>> {
    let mut dice = DiceSource::from_seed(options.seed);
    let mut opponent = RandomAgent::new(options.seed ^ 0x9e37_79b9_7f4a_7c15);
    let human = options.human;
    writeln!(
        output,
        "{} ({}): {}",
        rules.name(),
        rules.pieces(),
        rules.spec().description
    )?;
    writeln!(
        output,
        "You play {} ({}); the computer (random) plays {}. Seed {}.",
        human,
        render::piece_letter(human),
        !human,
        options.seed
    )?;
    writeln!(
        output,
        "Your route, square by square (marks: * on the board below):"
    )?;
    writeln!(output, "{}\n", render::route_numbers(rules, human))?;
    let mut position = rules.start();
    loop {
        if let Some(winner) = rules.winner(&position) {
            writeln!(output, "\n{}", render::board(rules, &position, human))?;
            let verdict = if winner == human {
                "You win!"
            } else {
                "The computer wins."
            };
            writeln!(output, "\n{winner} has borne off every piece. {verdict}")?;
            return Ok(Some(winner));
        }
        let mover = position.turn();
        let roll = dice.roll(rules.dice());
        let moves = rules.legal_moves(&position, roll);
        if mover == human {
            writeln!(output, "\n{}", render::board(rules, &position, human))?;
        }
        let who = if mover == human {
            "You"
        } else {
            "The computer"
        };
        if moves.is_empty() {
            let why = if roll == 0 {
                "nothing moves on a 0"
            } else {
                "no legal move"
            };
            writeln!(
                output,
                "{who} ({mover}) rolled {roll}: {why}, the turn passes."
            )?;
            position = rules.pass(&position);
            continue;
        }
        let chosen = if mover == human {
            writeln!(output, "You rolled {roll}.")?;
            for (i, &mv) in moves.iter().enumerate() {
                writeln!(
                    output,
                    "  {}) {}{}",
                    i + 1,
                    render::describe_move(rules, mv),
                    move_notes(rules, &position, mv)
                )?;
            }
            match ask_move(rules, &moves, &mut input, &mut output)? {
                Some(mv) => mv,
                None => {
                    writeln!(output, "\nGame abandoned.")?;
                    return Ok(None);
                }
            }
        } else {
            let mv = opponent.choose(rules, &position, roll, &moves);
            writeln!(
                output,
                "The computer ({mover}) rolled {roll} and plays {}{}.",
                render::describe_move(rules, mv),
                move_notes(rules, &position, mv)
            )?;
            mv
        };
        position = rules.apply(&position, chosen).position;
    }
}
