//! Game review: for every turn, the roll, the move played and the best
//! one, the mover's win probability after each, the win probability given
//! away (the loss), a class, and the luck of the roll; per player, the
//! totals. Measured against a reference agent: perfect play from a solved
//! table (exact), or a strong agent where there is none.
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
//! `forced` and not counted as a decision. The thresholds are those of
//! the usual chess and backgammon reviews scaled to these games, where a
//! shipped easy level gives away about 0.7 pp per decision on average and
//! random play about 1.2 pp: a mistake is a move few decent players make.

use crate::agent::Agent;
use crate::endgame::{EndgameTable, move_values};
use crate::evaluator::{best_index, terminal_value};
use crate::search::Stop;
use crate::strength::{Calibration, Estimate};
use sawah_engine::record::{ReplayError, move_token, replay_from};
use sawah_engine::senet::{Position, Senet};
use sawah_engine::{Codec, Game, Player};
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

/// What a turn's move gave away, from the mover's values after each of the
/// `legal` moves (`values`, in the same order) and the best of them: the
/// value of the move `played` (the best when none was played, a pass), its
/// loss in percentage points, and its class (forced without a choice).
pub(crate) fn judge<M: PartialEq>(
    best: f64,
    values: &[f64],
    legal: &[M],
    played: Option<M>,
) -> (f64, f64, Class) {
    let value_played = played
        .and_then(|mv| legal.iter().position(|m| *m == mv))
        .and_then(|k| values.get(k).copied())
        .unwrap_or(best);
    let loss_pp = (100.0 * (best - value_played)).max(0.0);
    let class = if legal.len() > 1 {
        Class::of(loss_pp)
    } else {
        Class::Forced
    };
    (value_played, loss_pp, class)
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
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Turn {
    /// The turn's number, from 1 (every roll is a turn, passes too).
    pub turn: usize,
    /// Who rolled.
    pub player: Player,
    /// The roll.
    pub roll: u8,
    /// The move played, as a results file writes it (`2:0-2`, `0:pass`).
    pub played: String,
    /// The best move by the reference (the played one when it is best).
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

impl Turn {
    /// The mover's win probability before the roll (the expected best over
    /// every roll: the best after this roll less its luck).
    pub fn value_before(&self) -> f64 {
        self.value_best - self.luck_pp / 100.0
    }
}

/// One player's totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// Moves with more than one legal choice.
    pub decisions: u64,
    /// Win probability given away over them, in percentage points.
    pub total_loss_pp: f64,
    /// The mean per decision, in percentage points.
    pub mean_loss_pp: f64,
    /// The standard deviation of the loss per decision, in percentage points.
    pub loss_sd_pp: f64,
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
    /// The strength the mean loss stands for, on the rule set's calibration
    /// scale for the reference used (see [`crate::strength`]; none for a
    /// reference without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strength: Option<Estimate>,
    #[serde(skip)]
    sum_of_squares: f64,
}

impl Summary {
    pub(crate) fn add(&mut self, class: Class, loss_pp: f64, luck_pp: f64) {
        self.luck_pp += luck_pp;
        if class == Class::Forced {
            return;
        }
        self.decisions += 1;
        self.total_loss_pp += loss_pp;
        self.sum_of_squares += loss_pp * loss_pp;
        match class {
            Class::Best => self.best += 1,
            Class::Good => self.good += 1,
            Class::Inaccuracy => self.inaccuracies += 1,
            Class::Mistake => self.mistakes += 1,
            Class::Blunder => self.blunders += 1,
            Class::Forced => {}
        }
    }

    /// Adds `other`'s decisions and luck to these totals (one player's
    /// games added up), keeping the mean and spread right.
    pub fn merge(&mut self, other: &Summary) {
        self.decisions += other.decisions;
        self.total_loss_pp += other.total_loss_pp;
        self.sum_of_squares += other.sum_of_squares;
        self.best += other.best;
        self.good += other.good;
        self.inaccuracies += other.inaccuracies;
        self.mistakes += other.mistakes;
        self.blunders += other.blunders;
        self.luck_pp += other.luck_pp;
        self.strength = None;
        self.finish();
    }

    pub(crate) fn finish(&mut self) {
        if self.decisions > 0 {
            let n = self.decisions as f64;
            self.mean_loss_pp = self.total_loss_pp / n;
            self.loss_sd_pp = (self.sum_of_squares / n - self.mean_loss_pp.powi(2))
                .max(0.0)
                .sqrt();
        }
    }
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Review {
    /// The rule set.
    pub rules: String,
    /// What the moves were measured against.
    pub reference: String,
    /// Whether the reference is exact (perfect play from a solved table).
    pub exact: bool,
    /// Every turn.
    pub turns: Vec<Turn>,
    /// Light's totals.
    pub light: Summary,
    /// Dark's totals.
    pub dark: Summary,
    /// The winner, if the game ended.
    pub winner: Option<Player>,
    /// Who played light and dark, when the record names them (a
    /// tournament's results line does); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    /// How the game ended early, when its record says a side forfeited (a
    /// tournament's results line keeps the `failure`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Forfeit>,
}

/// A game lost by forfeit, as a results line records its `failure`: the
/// side that failed, the kind of failure and what happened.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Forfeit {
    /// The side that forfeited.
    pub seat: Player,
    /// The kind of failure (`time`, `crash`, `start`, `malformed`,
    /// `illegal`, `withdrawn`); results written before kinds were
    /// recorded have none.
    #[serde(default)]
    pub kind: Option<String>,
    /// What happened, as the harness wrote it.
    pub message: String,
}

impl Review {
    /// The game's winner in words: the winning side (with its agent when
    /// known), "by forfeit" when the other side forfeited, or "nobody yet"
    /// for a game that did not end.
    pub fn winner_text(&self) -> String {
        match (&self.forfeit, self.winner) {
            (Some(forfeit), _) => format!("{} by forfeit", self.player_name(forfeit.seat.other())),
            (None, Some(winner)) => self.player_name(winner),
            (None, None) => "nobody yet".to_string(),
        }
    }

    /// The forfeit in a sentence, before the moves: who forfeited, the
    /// kind and the message (escaped and cut: it came from a bot).
    pub fn forfeit_text(&self) -> Option<String> {
        let forfeit = self.forfeit.as_ref()?;
        Some(format!(
            "{} forfeited ({}) after {} turns: {}",
            self.player_name(forfeit.seat),
            forfeit.kind.as_deref().unwrap_or("failure"),
            self.turns.len(),
            sawah_engine::text::printable(&forfeit.message, 400)
        ))
    }
}

/// The agents who played a reviewed game.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Players {
    /// Who played light.
    pub light: String,
    /// Who played dark.
    pub dark: String,
}

/// Why a game could not be reviewed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// A move does not replay.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The reference agent gives no values (random play).
    #[error("the reference {0} gives no win probabilities; use perfect, a level or a search")]
    NoValues(String),
    /// The reference's stop fired (a server's budget): the review was
    /// abandoned rather than finished with shallower values.
    #[error("the review was stopped by {0}")]
    Stopped(String),
}

/// The reference a game is measured against: an agent with values, named
/// for the output.
pub struct Reference<'a, G: Game> {
    /// The agent.
    pub agent: &'a mut dyn Agent<G>,
    /// How the output names it ("perfect play by the solved table ur.sawah").
    pub name: String,
    /// Whether its values are exact (a solved table).
    pub exact: bool,
    /// The stop the agent was given, if any: once it fires, the review or
    /// hint ends with [`ReviewError::Stopped`] instead of answering from
    /// values cut short.
    pub stop: Option<Stop>,
}

impl<G: Game> Reference<'_, G> {
    /// The mover's win probability after each of `moves` for `roll` (after
    /// the pass when there are none, as the only value).
    pub fn move_values(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
        moves: &[G::Move],
    ) -> Result<Vec<f64>, ReviewError> {
        let no_values = || ReviewError::NoValues(self.name.clone());
        self.check_stop()?;
        if moves.is_empty() {
            let after = game.pass(position);
            let value = match terminal_value(game, &after) {
                Some(v) => v,
                None => self.agent.evaluate(game, &after).ok_or_else(no_values)?,
            };
            return Ok(vec![1.0 - value]);
        }
        let choice = self.agent.decide(game, position, roll, moves);
        self.check_stop()?;
        choice.values.ok_or_else(no_values)
    }

    /// [`ReviewError::Stopped`] once the stop has fired.
    fn check_stop(&self) -> Result<(), ReviewError> {
        match self.stop.as_ref().and_then(Stop::reason) {
            Some(reason) => Err(ReviewError::Stopped(reason.to_string())),
            None => Ok(()),
        }
    }

    /// The mover's best win probability after `roll`, and the best move's index.
    pub(crate) fn best_after(
        &mut self,
        game: &G,
        position: &G::Position,
        roll: u8,
    ) -> Result<(f64, usize, Vec<f64>), ReviewError> {
        let moves = game.legal_moves(position, roll);
        let values = self.move_values(game, position, roll, &moves)?;
        let index = best_index(&values);
        Ok((values[index], index, values))
    }
}

/// Reviews the game of `tokens` (moves as a results file writes them),
/// played from `start`, against `reference`.
pub fn review<G: Game + Codec>(
    game: &G,
    start: G::Position,
    tokens: &[String],
    reference: &mut Reference<'_, G>,
) -> Result<Review, ReviewError> {
    // Every move replays before any search: a bad record costs nothing.
    replay_from(game, start, tokens, |_| {})?;
    let mut turns = Vec::new();
    let mut summaries = [Summary::default(), Summary::default()];
    let mut failure = None;
    let end = replay_from(game, start, tokens, |step| {
        if failure.is_some() {
            return;
        }
        let result = (|| {
            let position = step.position;
            let player = game.turn(position);
            let mut expected = 0.0;
            let mut this_roll = None;
            for (roll, p) in game.dice().outcomes() {
                let best = reference.best_after(game, position, roll)?;
                expected += p * best.0;
                if roll == step.roll {
                    this_roll = Some(best);
                }
            }
            let (value_best, best_index, values) = match this_roll {
                Some(found) => found,
                None => reference.best_after(game, position, step.roll)?,
            };
            let (value_played, loss_pp, class) =
                judge(value_best, &values, step.legal, step.played);
            let luck_pp = 100.0 * (value_best - expected);
            summaries[player.index()].add(class, loss_pp, luck_pp);
            let best = step.legal.get(best_index).copied();
            turns.push(Turn {
                turn: turns.len() + 1,
                player,
                roll: step.roll,
                played: move_token(game, step.roll, step.played),
                best: move_token(game, step.roll, best),
                value_played,
                value_best,
                loss_pp,
                class,
                luck_pp,
            });
            Ok(())
        })();
        if let Err(e) = result {
            failure = Some(e);
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    for summary in &mut summaries {
        summary.finish();
    }
    let [light, dark] = summaries;
    Ok(Review {
        rules: game.name().to_string(),
        reference: reference.name.clone(),
        exact: reference.exact,
        turns,
        light,
        dark,
        winner: game.winner(&end),
        players: None,
        forfeit: None,
    })
}

impl Review {
    /// `player`, with the agent who played it when the record named them:
    /// "light (`hard`)".
    pub fn player_name(&self, player: Player) -> String {
        match &self.players {
            None => player.to_string(),
            Some(players) => {
                let agent = match player {
                    Player::Light => &players.light,
                    Player::Dark => &players.dark,
                };
                format!("{player} (`{agent}`)")
            }
        }
    }

    /// A player's totals.
    pub fn summary(&self, player: Player) -> &Summary {
        match player {
            Player::Light => &self.light,
            Player::Dark => &self.dark,
        }
    }

    /// Adds each player's strength estimate from `calibration`, whose
    /// losses must have been measured by this review's reference.
    pub fn estimate_strength(&mut self, calibration: &Calibration) {
        for summary in [&mut self.light, &mut self.dark] {
            summary.strength =
                calibration.estimate(summary.mean_loss_pp, summary.loss_sd_pp, summary.decisions);
        }
    }

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

    /// The review as Markdown: the players' totals, then every turn.
    pub fn markdown(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let winner = self.winner_text();
        let _ = writeln!(
            out,
            "# Review of a game of {} (won by {winner})\n\nReference: {}. Losses and luck in percentage points of win probability.\n",
            self.rules, self.reference
        );
        if let Some(forfeit) = self.forfeit_text() {
            let _ = writeln!(out, "**Forfeit.** {forfeit}\n");
        }
        let _ = writeln!(
            out,
            "| player | decisions | mean loss | total loss | best | good | inaccuracies | mistakes | blunders | luck |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for player in Player::BOTH {
            let s = self.summary(player);
            let _ = writeln!(
                out,
                "| {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {:+.2} |",
                self.player_name(player),
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
        let estimates: Vec<String> = Player::BOTH
            .into_iter()
            .filter_map(|p| {
                let text = &self.summary(p).strength.as_ref()?.text;
                Some(format!("- {} {text}", self.player_name(p)))
            })
            .collect();
        if !estimates.is_empty() {
            let _ = writeln!(
                out,
                "\nStrength, from the mean loss:\n\n{}",
                estimates.join("\n")
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
/// Each player's exact losses over the turns of a game whose position a
/// table of exact values covers, and every decision each player made
/// (covered or not): what [`review_exact`] finds.
#[derive(Clone, Debug, Default)]
pub struct ExactReview {
    /// Light's and dark's totals over the covered turns.
    pub covered: [Summary; 2],
    /// Light's and dark's decisions in the whole game (moves with more
    /// than one legal choice), so that the covered share can be told.
    pub decisions: [u64; 2],
}

/// Each player's exact losses over the turns of a game (moves as a results
/// file writes them, from `start`) whose position `move_values` covers:
/// the review's totals ([`Summary`]) restricted to those turns, measured
/// against the exact values, with every decision of the game counted. The
/// covered positions are an endgame table's (Senet) or a partial table's
/// late layers (race): every successor of a covered position is covered,
/// so `move_values` gives each move's exact value for the mover, or the
/// pass's when there is no move, or `None` where the position is not
/// covered.
pub fn review_exact<G: Game + Codec>(
    game: &G,
    start: G::Position,
    tokens: &[String],
    move_values: impl Fn(&G::Position, &[G::Move]) -> Option<Vec<f64>>,
) -> Result<ExactReview, ReplayError> {
    let mut review = ExactReview::default();
    replay_from(game, start, tokens, |step| {
        let position = step.position;
        let side = game.turn(position).index();
        if step.legal.len() > 1 {
            review.decisions[side] += 1;
        }
        // Every roll's move values once: the best after each gives the
        // position's value before the roll (for the luck), and the roll
        // made gives the loss.
        let mut expected = 0.0;
        let mut this_roll = None;
        for (roll, p) in game.dice().outcomes() {
            let moves = game.legal_moves(position, roll);
            let Some(values) = move_values(position, &moves) else {
                return;
            };
            expected += p * values.iter().copied().fold(0.0, f64::max);
            if roll == step.roll {
                this_roll = Some(values);
            }
        }
        let Some(values) = this_roll else {
            return;
        };
        let best = values.iter().copied().fold(0.0, f64::max);
        let (_, loss_pp, class) = judge(best, &values, step.legal, step.played);
        review.covered[side].add(class, loss_pp, 100.0 * (best - expected));
    })?;
    for summary in &mut review.covered {
        summary.finish();
    }
    Ok(review)
}

/// [`review_exact`] of a Senet game against an endgame table: each
/// player's exact losses over the turns it covers.
pub fn review_endgame(
    senet: &Senet,
    table: &EndgameTable,
    start: Position,
    tokens: &[String],
) -> Result<[Summary; 2], ReplayError> {
    review_exact(senet, start, tokens, |position, moves| {
        move_values(senet, table, position, moves)
    })
    .map(|review| review.covered)
}

/// The mover's exact win probability after each of `moves` (after the
/// pass when there are none, as the only value) in a race position a
/// partial (or whole) table holds; `None` where it does not hold it
/// (every successor of a position it holds is held).
pub fn race_move_values(
    rules: &sawah_engine::race::RuleSet,
    table: &crate::table::Table,
    position: &sawah_engine::race::Position,
    moves: &[sawah_engine::race::Move],
) -> Option<Vec<f64>> {
    table.get(position)?;
    if moves.is_empty() {
        let passed = Game::pass(rules, position);
        return Some(vec![1.0 - table.get(&passed)?]);
    }
    Some(
        moves
            .iter()
            .map(|&mv| crate::perfect::move_value(rules, table, position, mv))
            .collect(),
    )
}
