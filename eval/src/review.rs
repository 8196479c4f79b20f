//! Game review against a solved table: for every turn, the roll, the move
//! played and the best one, the mover's win probability after each, the
//! win probability given away (the loss), a class, and the luck of the
//! roll; per player, the totals.
//!
//! Units: win probabilities are 0 to 1; losses and luck are in percentage
//! points (pp), as loss per move is everywhere in this project.
//!
//! **Luck**, as GNU Backgammon defines it: the mover's best win probability
//! after this roll, less the expected best over every roll (the position's
//! value before rolling). Summed over the rolls with their probabilities it
//! is zero, so a player's total luck is what the dice gave them.
//!
//! **Classes**, by the loss of a move with more than one legal choice:
//! `best` (0), `good` (under 1 pp), `inaccuracy` (1 to 3 pp), `mistake`
//! (3 to 8 pp), `blunder` (8 pp or more). A forced move or a pass is
//! `forced` and not counted as a decision.

use crate::gamelog::{ReplayError, move_token, replay};
use sawah_agents::perfect;
use sawah_agents::table::Table;
use sawah_engine::race::{Position, RuleSet};
use sawah_engine::{Game, Player};
use serde::Serialize;

/// Thresholds of the classes, in percentage points of loss.
pub const GOOD_BELOW: f64 = 1.0;
/// A loss from here on is a mistake.
pub const MISTAKE_FROM: f64 = 3.0;
/// A loss from here on is a blunder.
pub const BLUNDER_FROM: f64 = 8.0;
/// Losses below this (pp) count as none: the table's rounding.
pub const NO_LOSS: f64 = 1e-4;

/// How good a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// A pass or the only legal move.
    Forced,
    /// A best move.
    Best,
    /// Under [`GOOD_BELOW`] pp lost.
    Good,
    /// Up to [`MISTAKE_FROM`] pp lost.
    Inaccuracy,
    /// Up to [`BLUNDER_FROM`] pp lost.
    Mistake,
    /// [`BLUNDER_FROM`] pp or more lost.
    Blunder,
}

impl Class {
    /// The class of a decision that lost `loss_pp` percentage points.
    pub fn of(loss_pp: f64) -> Class {
        if loss_pp < NO_LOSS {
            Class::Best
        } else if loss_pp < GOOD_BELOW {
            Class::Good
        } else if loss_pp < MISTAKE_FROM {
            Class::Inaccuracy
        } else if loss_pp < BLUNDER_FROM {
            Class::Mistake
        } else {
            Class::Blunder
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Forced => "forced",
            Class::Best => "best",
            Class::Good => "good",
            Class::Inaccuracy => "inaccuracy",
            Class::Mistake => "mistake",
            Class::Blunder => "blunder",
        }
    }
}

/// One reviewed turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Turn {
    /// The turn's number, from 1 (every roll is a turn, passes too).
    pub turn: usize,
    /// Who rolled.
    pub player: Player,
    /// The roll.
    pub roll: u8,
    /// The move played, as a results file writes it (`2:0-2`, `0:pass`).
    pub played: String,
    /// The best move by the table (the played one when it is best).
    pub best: String,
    /// The mover's win probability after the move played.
    pub value_played: f64,
    /// The mover's win probability after the best move.
    pub value_best: f64,
    /// Win probability given away, in percentage points.
    pub loss_pp: f64,
    /// The move's class.
    pub class: Class,
    /// The roll's luck for the mover, in percentage points.
    pub luck_pp: f64,
}

/// One player's totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Moves with more than one legal choice.
    pub decisions: u64,
    /// Win probability given away over them, in percentage points.
    pub total_loss_pp: f64,
    /// The mean per decision, in percentage points.
    pub mean_loss_pp: f64,
    /// Decisions by class: best, good, inaccuracy, mistake, blunder.
    pub best: u64,
    /// See [`Class::Good`].
    pub good: u64,
    /// See [`Class::Inaccuracy`].
    pub inaccuracies: u64,
    /// See [`Class::Mistake`].
    pub mistakes: u64,
    /// See [`Class::Blunder`].
    pub blunders: u64,
    /// The luck of all the player's rolls, in percentage points.
    pub luck_pp: f64,
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// The rule set.
    pub rules: String,
    /// What the moves were measured against.
    pub reference: String,
    /// Every turn.
    pub turns: Vec<Turn>,
    /// Light's totals.
    pub light: Summary,
    /// Dark's totals.
    pub dark: Summary,
    /// The winner, if the game ended.
    pub winner: Option<Player>,
}

/// The mover's win probability after the best move for `roll` (after a
/// pass when nothing moves), and that move.
fn best_after(
    rules: &RuleSet,
    table: &Table,
    position: &Position,
    roll: u8,
) -> (f64, Option<sawah_engine::race::Move>) {
    let moves = rules.legal_moves(position, roll);
    let mut best: Option<(f64, sawah_engine::race::Move)> = None;
    for &mv in moves.iter() {
        let value = perfect::move_value(rules, table, position, mv);
        // Ties go to the first legal move, as the perfect agent plays.
        if best.is_none_or(|(b, _)| value > b + 1e-12) {
            best = Some((value, mv));
        }
    }
    match best {
        Some((value, mv)) => (value, Some(mv)),
        None => (
            1.0 - perfect::position_value(rules, table, &rules.pass(position)),
            None,
        ),
    }
}

/// Reviews the game of `tokens` (a results file's moves) from the start,
/// against `table` (`reference` says what it is, for the output).
pub fn review(
    rules: &RuleSet,
    table: &Table,
    reference: &str,
    tokens: &[String],
) -> Result<Review, ReplayError> {
    let mut turns = Vec::new();
    let mut summaries = [Summary::default(), Summary::default()];
    let end = replay(rules, tokens, |step| {
        let position = step.position;
        let player = rules.turn(position);
        let expected: f64 = rules
            .dice()
            .outcomes()
            .map(|(roll, p)| p * best_after(rules, table, position, roll).0)
            .sum();
        let (value_best, best) = best_after(rules, table, position, step.roll);
        let value_played = match step.played {
            Some(mv) => perfect::move_value(rules, table, position, mv),
            None => value_best,
        };
        let loss_pp = (100.0 * (value_best - value_played)).max(0.0);
        let class = if step.legal.len() > 1 {
            Class::of(loss_pp)
        } else {
            Class::Forced
        };
        let luck_pp = 100.0 * (value_best - expected);
        let summary = &mut summaries[player.index()];
        summary.luck_pp += luck_pp;
        if class != Class::Forced {
            summary.decisions += 1;
            summary.total_loss_pp += loss_pp;
            match class {
                Class::Best => summary.best += 1,
                Class::Good => summary.good += 1,
                Class::Inaccuracy => summary.inaccuracies += 1,
                Class::Mistake => summary.mistakes += 1,
                Class::Blunder => summary.blunders += 1,
                Class::Forced => {}
            }
        }
        turns.push(Turn {
            turn: turns.len() + 1,
            player,
            roll: step.roll,
            played: move_token(rules, step.roll, step.played),
            best: move_token(rules, step.roll, best),
            value_played,
            value_best,
            loss_pp,
            class,
            luck_pp,
        });
    })?;
    for summary in &mut summaries {
        if summary.decisions > 0 {
            summary.mean_loss_pp = summary.total_loss_pp / summary.decisions as f64;
        }
    }
    let [light, dark] = summaries;
    Ok(Review {
        rules: rules.name().to_string(),
        reference: reference.to_string(),
        turns,
        light,
        dark,
        winner: rules.winner(&end),
    })
}

impl Review {
    /// The review as Markdown: the players' totals, then every turn.
    pub fn markdown(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let winner = self
            .winner
            .map_or("nobody yet".to_string(), |w| w.name().to_string());
        let _ = writeln!(
            out,
            "# Review of a game of {} (won by {winner})\n\nReference: {}. Losses and luck in percentage points of win probability.\n",
            self.rules, self.reference
        );
        let _ = writeln!(
            out,
            "| player | decisions | mean loss | total loss | best | good | inaccuracies | mistakes | blunders | luck |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for (player, s) in [(Player::Light, &self.light), (Player::Dark, &self.dark)] {
            let _ = writeln!(
                out,
                "| {player} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {:+.2} |",
                s.decisions,
                s.mean_loss_pp,
                s.total_loss_pp,
                s.best,
                s.good,
                s.inaccuracies,
                s.mistakes,
                s.blunders,
                s.luck_pp + 0.0
            );
        }
        let _ = writeln!(
            out,
            "\n| turn | player | roll | played | best | win after played | win after best | loss | class | luck |\n|---:|---|---:|---|---|---:|---:|---:|---|---:|"
        );
        for t in &self.turns {
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | `{}` | {:.1}% | {:.1}% | {:.2} | {} | {:+.2} |",
                t.turn,
                t.player,
                t.roll,
                t.played,
                t.best,
                100.0 * t.value_played,
                100.0 * t.value_best,
                t.loss_pp,
                t.class.name(),
                t.luck_pp + 0.0
            );
        }
        out
    }
}

/// Why a game record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Not a JSON object with `rules` and `moves` or `turns`.
    #[error("{0}")]
    Shape(String),
    /// A turn that is not `{"roll":R,"move":{"from":F,"to":T}}` or `{"roll":R,"move":"pass"}`.
    #[error("turn {turn}: {message}")]
    Turn {
        /// The turn's number, from 1.
        turn: usize,
        /// What was wrong.
        message: String,
    },
}

/// A game record (docs/protocol.md): `{"rules":R,"turns":[{"roll":2,"move":
/// {"from":0,"to":2}}, {"roll":0,"move":"pass"}, …]}`, or with the moves as
/// a tournament results file writes them, `{"rules":R,"moves":["2:0-2",
/// "0:pass", …]}` (so a line of a `results.jsonl` is a record; its other
/// fields are ignored). Returns the rule set's name and the moves as
/// tokens; whether they replay is checked by [`review`].
pub fn read_record(value: &serde_json::Value) -> Result<(String, Vec<String>), RecordError> {
    use serde_json::Value;
    let shape = |m: &str| RecordError::Shape(m.to_string());
    let Value::Object(map) = value else {
        return Err(shape(
            "a game record is an object with \"rules\" and \"turns\" (or \"moves\")",
        ));
    };
    let rules = map
        .get("rules")
        .and_then(Value::as_str)
        .ok_or_else(|| shape("a game record needs \"rules\", the rule set's name"))?
        .to_string();
    if map.contains_key("start") {
        return Err(shape(
            "records from a given start position are not reviewed yet; give the game from the start",
        ));
    }
    if let Some(moves) = map.get("moves") {
        let tokens = moves
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|t| t.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| {
                shape("\"moves\" must be a list of moves such as \"2:0-2\" or \"0:pass\"")
            })?;
        return Ok((rules, tokens));
    }
    let turns = map
        .get("turns")
        .and_then(Value::as_array)
        .ok_or_else(|| shape("a game record needs \"turns\" (or \"moves\"), a list"))?;
    let square = |v: &Value| match v {
        Value::Number(n) => n.as_u64().filter(|&n| n <= 255).map(|n| n.to_string()),
        Value::String(s) if s == "off" => Some("off".to_string()),
        _ => None,
    };
    let tokens = turns
        .iter()
        .enumerate()
        .map(|(k, turn)| {
            let bad = |message: &str| RecordError::Turn {
                turn: k + 1,
                message: message.to_string(),
            };
            let roll = turn
                .get("roll")
                .and_then(Value::as_u64)
                .filter(|&r| r <= 255)
                .ok_or_else(|| bad("\"roll\" must be a whole number"))?;
            match turn.get("move") {
                Some(Value::String(s)) if s == "pass" => Ok(format!("{roll}:pass")),
                Some(Value::Object(mv)) => {
                    let from = mv.get("from").and_then(square);
                    let to = mv.get("to").and_then(square);
                    match (from, to) {
                        (Some(from), Some(to)) => Ok(format!("{roll}:{from}-{to}")),
                        _ => Err(bad(
                            "a move is {\"from\":F,\"to\":T} (T a square or \"off\")",
                        )),
                    }
                }
                _ => Err(bad("\"move\" must be {\"from\":F,\"to\":T} or \"pass\"")),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rules, tokens))
}

impl Turn {
    /// The mover's win probability before the roll (the expected best over
    /// every roll: the best after this roll less its luck).
    pub fn value_before(&self) -> f64 {
        self.value_best - self.luck_pp / 100.0
    }
}

impl Review {
    /// `view`'s win probability before each turn, in turn order.
    pub fn chances(&self, view: Player) -> Vec<f64> {
        self.turns
            .iter()
            .map(|t| {
                let mover = t.value_before();
                if t.player == view { mover } else { 1.0 - mover }
            })
            .collect()
    }

    /// The game as a picture (SVG): `view`'s win probability before each
    /// turn (one point per turn), the luck of each roll as a bar from the
    /// middle line (up when it helped `view`), and the mistakes (orange)
    /// and blunders (red) of both players marked on the line.
    pub fn svg(&self, view: Player) -> Result<String, String> {
        use plotters::prelude::*;
        let chances = self.chances(view);
        let n = chances.len().max(1) as f64;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, (900, 420)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!(
                        "{}: {view}'s chances over the game (reference: {})",
                        self.rules, self.reference
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
            for (k, t) in self.turns.iter().enumerate() {
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
            for (k, t) in self.turns.iter().enumerate() {
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
}
