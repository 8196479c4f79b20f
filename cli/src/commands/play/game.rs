//! `sawah play`: a person against the computer in the terminal, for any game.

use sawah_agents::AgentSpec;
use sawah_agents::heuristic::HasHeuristic;
use sawah_engine::record::move_token;
use sawah_engine::senet::daily::DailyThrows;
use sawah_engine::{DiceSource, Player};
use sawah_eval::arena::entrant::Entrant;
use sawah_eval::arena::gamelog::refereed_move;
use sawah_protocol::messages::{Answer, HintAnswer, HintRequest, HintedMove, Request};
use sawah_workflows::render::{Render, piece_letter, wrap};
use std::io::{self, BufRead, Write};

/// Where the rolls come from.
#[derive(Clone, Debug)]
pub enum Rolls {
    /// The seeded dice source.
    Seeded(u64),
    /// A fixed sequence consumed in order by both players (Senet's daily game).
    Daily {
        /// The date, `YYYY-MM-DD`.
        date: String,
        /// The throws.
        throws: DailyThrows,
    },
}

/// How a game in the terminal is set up.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The side the person plays.
    pub human: Player,
    /// Seed for the computer's choices (and the dice, unless `rolls` is a fixed sequence).
    pub seed: u64,
    /// The dice.
    pub rolls: Rolls,
    /// The computer: one of our agents, or an outside bot.
    pub opponent: Entrant,
    /// The computer as the player named it (`hard`); its spec when empty.
    pub opponent_name: String,
    /// What answers `hint` during the game (the protocol's `hint`, with
    /// the review's reference); `None`: hints are not offered.
    pub hints: Option<std::sync::Arc<sawah_protocol::Bot>>,
    /// The tutor: before a move that gives away at least this many
    /// percentage points of win probability (by the hints' reference), say
    /// what it costs, what is better and why, and let the person keep it
    /// or choose again. `None`: no tutor.
    pub tutor: Option<f64>,
}

impl PlayOptions {
    /// A game with seeded dice against a random opponent.
    pub fn seeded(human: Player, seed: u64) -> PlayOptions {
        PlayOptions {
            human,
            seed,
            rolls: Rolls::Seeded(seed),
            opponent: AgentSpec::new(sawah_agents::spec::AgentKind::Random).into(),
            opponent_name: String::new(),
            hints: None,
            tutor: None,
        }
    }
}

/// What the person may type on their turn, besides a move's number.
const KEYS: &str = "q quits, ? shows the rules, h ranks your moves";

/// Asks until the person gives a valid move number; `None` on end of input
/// or quit. With one legal move, Enter alone plays it; `?` or `help` shows
/// the rules and the moves, `h` or `hint` ranks the moves (when hints are
/// offered).
fn ask_move<G: Render>(
    game: &G,
    turn: Turn<'_, G>,
    (hints, tutor): (Option<&sawah_protocol::Bot>, Option<f64>),
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<Option<G::Move>> {
    let moves = turn.moves;
    let choices = || {
        moves
            .iter()
            .enumerate()
            .map(|(i, &m)| format!("{}) {}", i + 1, game.describe_move(m)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    loop {
        if moves.len() == 1 {
            write!(output, "  your move [Enter plays it; {KEYS}]: ")?;
        } else {
            write!(output, "  your move [1-{}; {KEYS}]: ", moves.len())?;
        }
        output.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let answer = line.trim();
        if answer.eq_ignore_ascii_case("q") || answer.eq_ignore_ascii_case("quit") {
            return Ok(None);
        }
        if answer == "?" || answer.eq_ignore_ascii_case("help") {
            writeln!(output, "{}", game.rules_help())?;
            let text = format!(
                "Your moves: {}. Type a move's number (Enter alone when there is only one); {KEYS}.",
                choices()
            );
            writeln!(output, "{}", wrap(&text, "  "))?;
            continue;
        }
        if answer.eq_ignore_ascii_case("h") || answer.eq_ignore_ascii_case("hint") {
            writeln!(output, "{}", hint_text(game, &turn, hints))?;
            continue;
        }
        if answer.is_empty() && moves.len() == 1 {
            return Ok(Some(moves[0]));
        }
        match answer.parse::<usize>() {
            Ok(n) if (1..=moves.len()).contains(&n) => {
                let advice = tutor.and_then(|threshold| {
                    tutor_advice(game, &turn, hints, moves[n - 1], threshold)
                });
                let Some(advice) = advice else {
                    return Ok(Some(moves[n - 1]));
                };
                writeln!(output, "{}", wrap(&advice, "  "))?;
                write!(
                    output,
                    "  keep it? [y keeps it; anything else chooses again]: "
                )?;
                output.flush()?;
                let mut line = String::new();
                if input.read_line(&mut line)? == 0 {
                    return Ok(None);
                }
                if line.trim().eq_ignore_ascii_case("y") || line.trim().eq_ignore_ascii_case("yes")
                {
                    return Ok(Some(moves[n - 1]));
                }
            }
            _ => {
                let text = format!(
                    "{answer:?} is not a move: type a number from 1 to {} ({})",
                    moves.len(),
                    choices()
                );
                writeln!(output, "{}", wrap(&text, "  "))?
            }
        }
    }
}

/// A turn the person is asked about: the position, the roll and the moves.
struct Turn<'a, G: Render> {
    position: &'a G::Position,
    roll: u8,
    moves: &'a [G::Move],
}

/// The hint reference's ranking of the turn's moves (the protocol's typed
/// `hint` answer, asked in process), or why there is none.
fn ranked_moves<G: Render>(
    game: &G,
    turn: &Turn<'_, G>,
    bot: &sawah_protocol::Bot,
) -> Result<HintAnswer, String> {
    let request = Request::Hint(HintRequest {
        position: game.position_to_json(turn.position),
        roll: Some(turn.roll),
        bot: None,
    });
    match bot.answer(request, None) {
        Ok(Answer::Hint(hint)) => Ok(hint),
        Ok(_) => Err("no answer".to_string()),
        Err(e) => Err(e.message),
    }
}

/// The index in the turn's moves of the hint's `entry`.
fn index_of<G: Render>(game: &G, turn: &Turn<'_, G>, entry: &HintedMove) -> Option<usize> {
    turn.moves
        .iter()
        .position(|&m| game.move_json(m) == entry.mv)
}

/// The moves ranked by the hint reference, numbered as the person's list
/// numbers them, or why there are none.
fn hint_text<G: Render>(
    game: &G,
    turn: &Turn<'_, G>,
    hints: Option<&sawah_protocol::Bot>,
) -> String {
    let Some(bot) = hints else {
        return "  Hints are not offered in this game.".to_string();
    };
    let hint = match ranked_moves(game, turn, bot) {
        Ok(hint) => hint,
        Err(why) => return format!("  No hint: {why}"),
    };
    let mut lines = vec![wrap(
        &format!("Your moves, best first, by {}:", hint.reference),
        "  ",
    )];
    for entry in &hint.moves {
        let Some(k) = index_of(game, turn, entry) else {
            continue;
        };
        let line = format!(
            "{}) {}: wins {:.1}%, gives away {:.2} points{}",
            k + 1,
            game.describe_move(turn.moves[k]),
            100.0 * entry.value,
            entry.loss_pp + 0.0,
            if entry.words.is_empty() {
                String::new()
            } else {
                format!("; {}", entry.words.join(", "))
            }
        );
        lines.push(wrap(&line, "    "));
    }
    lines.join("\n")
}

/// What the tutor says before `chosen` when it gives away at least
/// `threshold` points against the best move (by the hints' reference):
/// the cost, the better move, and why, in the hint's terms. `None` when
/// the move is good enough, or there is no reference to ask.
fn tutor_advice<G: Render>(
    game: &G,
    turn: &Turn<'_, G>,
    hints: Option<&sawah_protocol::Bot>,
    chosen: G::Move,
    threshold: f64,
) -> Option<String> {
    if turn.moves.len() < 2 {
        return None;
    }
    let hint = ranked_moves(game, turn, hints?).ok()?;
    let chosen_json = game.move_json(chosen);
    let mine = hint.moves.iter().find(|entry| entry.mv == chosen_json)?;
    let loss = mine.loss_pp;
    if loss < threshold || loss <= 0.0 {
        return None;
    }
    let best = hint.moves.first()?;
    let number = index_of(game, turn, best)?;
    let better: Vec<&str> = best
        .words
        .iter()
        .filter(|w| !w.is_empty() && !mine.words.contains(w))
        .map(String::as_str)
        .collect();
    let hit = |entry: &HintedMove| entry.hit_chance.unwrap_or(0.0);
    let mut reason = String::new();
    if !better.is_empty() {
        reason.push_str(&format!(" The better move {}.", better.join("; ")));
    }
    if hit(mine) > hit(best) + 0.05 {
        reason.push_str(&format!(
            " Yours leaves a {:.0}% chance to be hit, the better one {:.0}%.",
            100.0 * hit(mine),
            100.0 * hit(best)
        ));
    }
    Some(format!(
        "The tutor: {} gives away {loss:.1} points (you would win {:.1}% instead of {:.1}%). Better: {}) {}.{reason}",
        game.describe_move(chosen),
        100.0 * mine.value,
        100.0 * best.value,
        number + 1,
        game.describe_move(turn.moves[number]),
    ))
}

fn notes_suffix<G: Render>(game: &G, position: &G::Position, mv: G::Move) -> String {
    let notes = game.move_notes(position, mv);
    if notes.is_empty() {
        String::new()
    } else {
        format!("  ({})", notes.join(", "))
    }
}

/// Plays one game; returns the winner, or `None` if the person quit or input ended.
pub fn play<G: Render + HasHeuristic + 'static>(
    game: &G,
    options: &PlayOptions,
    input: impl BufRead,
    output: impl Write,
) -> io::Result<Option<Player>> {
    Ok(play_game(game, options, input, output)?.winner)
}

/// A game played in the terminal, as it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The winner; `None` when the person quit or input ended.
    pub winner: Option<Player>,
    /// Every roll and move, as tokens (a game record's `"moves"`).
    pub moves: Vec<String>,
}

/// Where a game's rolls come from, one at a time.
enum RollSource {
    Dice(Box<DiceSource>),
    Fixed(DailyThrows),
}

impl RollSource {
    fn new(rolls: &Rolls) -> RollSource {
        match rolls {
            Rolls::Seeded(seed) => RollSource::Dice(Box::new(DiceSource::from_seed(*seed))),
            Rolls::Daily { throws, .. } => RollSource::Fixed(throws.clone()),
        }
    }

    fn next<G: sawah_engine::Game>(&mut self, game: &G) -> u8 {
        match self {
            RollSource::Dice(dice) => dice.roll(game.dice()),
            RollSource::Fixed(throws) => throws.next_throw(),
        }
    }
}

/// A writer that keeps every line within [`sawah_workflows::render::WIDTH`]
/// columns: a longer line is broken at spaces, its continuation indented
/// two more than the line. A line without its end yet (a prompt) is
/// written as it is when flushed.
struct Wrapped<W: Write> {
    inner: W,
    line: Vec<u8>,
}

impl<W: Write> Wrapped<W> {
    fn emit(&mut self, ended: bool) -> io::Result<()> {
        let text = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        let width = text.chars().count();
        if !ended || width <= sawah_workflows::render::WIDTH {
            self.inner.write_all(text.as_bytes())?;
        } else {
            let indent: String = text.chars().take_while(|c| *c == ' ').collect();
            let wrapped =
                sawah_workflows::render::wrap_hanging(&text, &indent, &format!("{indent}  "));
            self.inner.write_all(wrapped.as_bytes())?;
        }
        if ended {
            self.inner.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl<W: Write> Write for Wrapped<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for &byte in bytes {
            if byte == b'\n' {
                self.emit(true)?;
            } else {
                self.line.push(byte);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.line.is_empty() {
            self.emit(false)?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Wrapped<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// [`play`], returning the game's record too (for its review).
pub fn play_game<G: Render + HasHeuristic + 'static>(
    game: &G,
    options: &PlayOptions,
    mut input: impl BufRead,
    output: impl Write,
) -> io::Result<Played> {
    let mut output = Wrapped {
        inner: output,
        line: Vec::new(),
    };
    let mut record = Vec::new();
    let mut rolls = RollSource::new(&options.rolls);
    let mut opponent = options
        .opponent
        .build(game, options.seed, &format!("play-{}", options.seed))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let human = options.human;
    introduce(game, options, &mut output)?;
    let mut position = game.start();
    loop {
        if let Some(winner) = game.winner(&position) {
            announce_winner(game, &position, winner, human, &mut output)?;
            return Ok(Played {
                winner: Some(winner),
                moves: record,
            });
        }
        let mover = game.turn(&position);
        let roll = rolls.next(game);
        let moves = game.legal_moves(&position, roll);
        if mover == human {
            writeln!(output, "\n{}", game.board(&position, human))?;
        }
        if moves.is_empty() {
            let who = if mover == human {
                "you"
            } else {
                "the computer"
            };
            let why = if roll == 0 {
                "nothing moves on a 0"
            } else {
                "no legal move"
            };
            writeln!(
                output,
                "Turn {}: {who} ({mover}) rolled {roll}: {why}, the turn passes.",
                record.len() + 1
            )?;
            record.push(move_token(game, roll, None));
            position = game.pass(&position);
            continue;
        }
        let chosen = if mover == human {
            let hints = options.hints.as_deref();
            let asked = (&position, roll, &moves[..]);
            let Some(mv) = human_turn(
                game,
                asked,
                (record.len() + 1, hints, options.tutor),
                &mut input,
                &mut output,
            )?
            else {
                writeln!(output, "\nGame abandoned.")?;
                return Ok(Played {
                    winner: None,
                    moves: record,
                });
            };
            mv
        } else {
            let turn = record.len() as u64 + 1;
            match refereed_move(opponent.as_mut(), game, &position, roll, &moves, turn) {
                Ok(mv) => {
                    writeln!(
                        output,
                        "Turn {turn}: the computer ({mover}) rolled {roll} and plays {}{}.",
                        game.describe_move(mv),
                        notes_suffix(game, &position, mv)
                    )?;
                    mv
                }
                Err(reason) => {
                    writeln!(
                        output,
                        "\nThe computer ({mover}) forfeits: {reason}. You win!"
                    )?;
                    return Ok(Played {
                        winner: Some(human),
                        moves: record,
                    });
                }
            }
        };
        record.push(move_token(game, roll, Some(chosen)));
        position = game.apply(&position, chosen).position;
    }
}

/// The opening lines: the rule set, who plays what, the seed or the day.
fn introduce<G: Render>(
    game: &G,
    options: &PlayOptions,
    output: &mut impl Write,
) -> io::Result<()> {
    // The computer as the player named it, with what it resolved to.
    let spec = options.opponent.portable();
    let computer = match options.opponent_name.as_str() {
        "" => spec,
        name if name == spec => spec,
        name => format!("{name}: {spec}"),
    };
    let human = options.human;
    writeln!(output, "{}", game.name())?;
    match &options.rolls {
        Rolls::Seeded(seed) => writeln!(
            output,
            "You play {} ({}); the computer ({computer}) plays {}. Seed {seed}.",
            human,
            piece_letter(human),
            !human
        )?,
        Rolls::Daily { date, .. } => writeln!(
            output,
            "The game of the day {date}: everyone gets the same throws. You play {} ({}); the computer ({computer}) plays {}.",
            human,
            piece_letter(human),
            !human
        )?,
    }
    writeln!(output, "{}\n", game.intro(human))
}

/// The final board, who won, and the game's closing note (Senet's score).
fn announce_winner<G: Render>(
    game: &G,
    position: &G::Position,
    winner: Player,
    human: Player,
    output: &mut impl Write,
) -> io::Result<()> {
    writeln!(output, "\n{}", game.board(position, human))?;
    let verdict = if winner == human {
        "You win!"
    } else {
        "The computer wins."
    };
    writeln!(output, "\n{winner} has borne off every piece. {verdict}")?;
    if let Some(note) = game.final_note(position) {
        writeln!(output, "{note}")?;
    }
    Ok(())
}

/// The person's turn: the moves listed, one asked for; `None` when they
/// quit or input ended.
fn human_turn<G: Render>(
    game: &G,
    (position, roll, moves): (&G::Position, u8, &[G::Move]),
    (number, hints, tutor): (usize, Option<&sawah_protocol::Bot>, Option<f64>),
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<Option<G::Move>> {
    writeln!(output, "Turn {number}: you rolled {roll}.")?;
    for (i, &mv) in moves.iter().enumerate() {
        writeln!(
            output,
            "  {}) {}{}",
            i + 1,
            game.describe_move(mv),
            notes_suffix(game, position, mv)
        )?;
    }
    if moves.len() == 1 {
        writeln!(output, "  (your only move)")?;
    }
    let turn = Turn {
        position,
        roll,
        moves,
    };
    let chosen = ask_move(game, turn, (hints, tutor), input, output)?;
    if let Some(mv) = chosen {
        writeln!(
            output,
            "You play {}{}.",
            game.describe_move(mv),
            notes_suffix(game, position, mv)
        )?;
    }
    Ok(chosen)
}
