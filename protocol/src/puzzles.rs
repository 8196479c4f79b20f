//! The `puzzle` and `solve_puzzle` commands: a puzzle from the shipped
//! models' puzzle set of a rule set ([`sawah_agents::puzzle`]), by id, of
//! the day, or near a rating; and an answer checked and explained. A
//! request names a puzzle by its id in `"puzzle"` (`"id"` is the
//! request's own, echoed in the answer).
//!
//! `puzzle` gives the question only (position, roll, legal moves, rating):
//! the answer, the values and the themes come with `solve_puzzle`, so a
//! front end can show a puzzle without giving it away.

use crate::Bot;
use crate::error::{ErrorKind, ProtocolError};
use crate::messages::{
    PuzzleAnswer, PuzzleChoice, PuzzleMoveLoss, PuzzleQuestion, PuzzleRequest, SolvePuzzleAnswer,
    SolvePuzzleRequest,
};
use sawah_agents::puzzle::{Puzzle, PuzzleSet};
use sawah_engine::json::MoveJson;
use sawah_engine::tags::Describe;
use sawah_engine::{Codec, with_game};
use std::sync::Arc;

fn invalid(message: String) -> ProtocolError {
    ProtocolError::new(ErrorKind::InvalidField, message)
}

impl Bot {
    /// The puzzle set of rule set `rules`.
    fn puzzle_set(&self, rules: &str) -> Result<Arc<PuzzleSet>, ProtocolError> {
        let game = self.rules(rules)?;
        let set = self
            .models
            .as_ref()
            .and_then(|models| models.puzzles(game.name()))
            .ok_or_else(|| {
                ProtocolError::new(
                    ErrorKind::Unsupported,
                    format!(
                        "no puzzle set for {rules}: the shipped models' manifest lists the puzzle sets, and this bot has {}",
                        if self.models.is_some() {
                            "none for this rule set"
                        } else {
                            "no models"
                        }
                    ),
                )
            })?;
        Ok(Arc::clone(set))
    }

    /// `{"cmd":"puzzle","rules":R}` with `"puzzle"` (an id), `"date"` (the puzzle of
    /// the day) or `"rating"` (and an optional `"seed"`): the puzzle's
    /// question, and how many puzzles the set holds.
    pub(crate) fn puzzle_request(
        &self,
        request: &PuzzleRequest,
    ) -> Result<PuzzleAnswer, ProtocolError> {
        let set = self.puzzle_set(&request.rules)?;
        let puzzle = pick(&set, &request.choice)?;
        Ok(PuzzleAnswer {
            puzzle: PuzzleQuestion {
                id: puzzle.id.clone(),
                rules: request.rules.clone(),
                position: puzzle.position.clone(),
                roll: puzzle.roll,
                moves: puzzle.moves.iter().map(|m| m.mv).collect(),
                rating: puzzle.rating,
                rating_bound: puzzle.rating_bound,
            },
            count: set.puzzles.len(),
        })
    }

    /// `{"cmd":"solve_puzzle","rules":R,"puzzle":ID,"move":M}`: whether `M`
    /// finds the answer (reaches the best move's position), with every
    /// move's value and loss, the themes and a sentence explaining it.
    pub(crate) fn solve_puzzle_request(
        &self,
        request: &SolvePuzzleRequest,
    ) -> Result<SolvePuzzleAnswer, ProtocolError> {
        let set = self.puzzle_set(&request.rules)?;
        let id = &request.puzzle;
        let puzzle = set
            .by_id(id)
            .ok_or_else(|| unknown_id(id, &request.rules, &set))?;
        let game = self.rules(&request.rules)?;
        with_game!(&game, g => explain(g, puzzle, &request.mv))
    }
}

fn unknown_id(id: &str, rules: &str, set: &PuzzleSet) -> ProtocolError {
    invalid(format!(
        "\"puzzle\": no puzzle {id:?} in {rules}'s set of {} puzzles",
        set.puzzles.len()
    ))
}

/// The puzzle a `puzzle` request asks for.
fn pick<'a>(set: &'a PuzzleSet, choice: &PuzzleChoice) -> Result<&'a Puzzle, ProtocolError> {
    match choice {
        PuzzleChoice::Id { puzzle } => set
            .by_id(puzzle)
            .ok_or_else(|| unknown_id(puzzle, &set.header.rules, set)),
        PuzzleChoice::Date { date } => set
            .daily(date)
            .map_err(|e| invalid(format!("\"date\": {e}"))),
        PuzzleChoice::Rating { rating, seed } => Ok(set.near_rating(*rating, seed.unwrap_or(0))),
    }
}

/// The answer to `solve_puzzle`.
fn explain<G: Codec + Describe>(
    game: &G,
    puzzle: &Puzzle,
    played: &MoveJson,
) -> Result<SolvePuzzleAnswer, ProtocolError> {
    let (position, moves) = puzzle
        .replay(game)
        .map_err(|e| ProtocolError::new(ErrorKind::InvalidPosition, e))?;
    let index = puzzle.index_of(played).ok_or_else(|| {
        invalid(format!(
            "\"move\" {played} is not a legal move of puzzle {} (its moves: {})",
            puzzle.id,
            puzzle
                .moves
                .iter()
                .map(|m| m.mv.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let answer = puzzle.index_of(&puzzle.answer).unwrap_or(0);
    let best = puzzle.moves[answer].value;
    let value = puzzle.moves[index].value;
    let correct = sawah_agents::puzzle::same_result(game, &position, moves[index], moves[answer]);
    let loss_pp = if correct { 0.0 } else { points(best - value) };
    let best_words = game.describe(&position, moves[answer]).words;
    let played_words = game.describe(&position, moves[index]).words;
    let explanation = sentence(
        correct,
        best,
        value,
        &best_words,
        &played_words,
        puzzle.margin_pp,
    );
    Ok(SolvePuzzleAnswer {
        puzzle: puzzle.id.clone(),
        correct,
        mv: puzzle.moves[index].mv,
        value,
        best: puzzle.answer,
        best_value: best,
        loss_pp,
        margin_pp: puzzle.margin_pp,
        themes: puzzle.themes.clone(),
        natural: puzzle.natural.clone(),
        rating: puzzle.rating,
        explanation,
        moves: puzzle
            .moves
            .iter()
            .map(|m| PuzzleMoveLoss {
                mv: m.mv,
                value: m.value,
                loss_pp: points(best - m.value),
            })
            .collect(),
    })
}

/// A difference in win probability in percentage points, at least 0,
/// rounded to the millionth of a point the file's values carry.
fn points(difference: f64) -> f64 {
    ((1e8 * difference).round() / 1e6).max(0.0)
}

/// One sentence on the answer: what the best move does and wins, and what
/// the move played gave away.
fn sentence(
    correct: bool,
    best: f64,
    value: f64,
    best_words: &[&str],
    played_words: &[&str],
    margin_pp: f64,
) -> String {
    let does = |words: &[&str]| {
        if words.is_empty() {
            "moves on".to_string()
        } else {
            words.join(", ")
        }
    };
    let percent = |p: f64| format!("{:.1}%", 100.0 * p);
    if correct {
        format!(
            "Correct: the best move ({}) wins {}, at least {margin_pp:.1} points more than any other.",
            does(best_words),
            percent(best)
        )
    } else {
        format!(
            "Not this one: your move ({}) wins {}; the best move ({}) wins {}, {:.1} points more.",
            does(played_words),
            percent(value),
            does(best_words),
            percent(best),
            100.0 * (best - value)
        )
    }
}
