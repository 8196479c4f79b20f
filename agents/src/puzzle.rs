//! Puzzles: positions where one move is exactly best by a clear margin and
//! a natural move is wrong, mined from games between the levels and valued
//! by a solved table (Senet: its endgame table). This module is the file
//! format and the ways a front end picks a puzzle; the generator is
//! `sawah_eval::study::puzzles`.
//!
//! **The format** (`docs/puzzles.md` has it with an example): JSON lines.
//! The first line is a [`PuzzleHeader`] (`"format":"sawah-puzzles"`, a
//! format version, the rule set, the margin, the reference and the seed);
//! every other line is one [`Puzzle`]. A reader refuses another format,
//! version or rule set, a duplicate id, and a puzzle whose moves are not
//! exactly the legal moves of its position and roll, whose answer is not
//! the best of them, or whose best move does not beat every move that
//! reaches another position by the margin.
//!
//! **Picking one**: by id; the puzzle of the day ([`PuzzleSet::daily`], a
//! pure function of the rule set and the date, so every front door gives
//! the same one); or near a rating ([`PuzzleSet::near_rating`]).

use sawah_engine::json::{MoveJson, PositionJson};
use sawah_engine::senet::daily::{SplitMix64, check_date, fnv1a64};
use sawah_engine::{Codec, Game};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What a puzzle file's header says in `format`.
pub const PUZZLE_FORMAT: &str = "sawah-puzzles";
/// The puzzle format version this build reads and writes.
pub const PUZZLE_VERSION: u32 = 1;
/// The largest puzzle file read (the shipped sets are about 100 KB each).
pub const MAX_PUZZLE_FILE_BYTES: u64 = 8 << 20;
/// The most puzzles one file may hold.
pub const MAX_PUZZLES: usize = 100_000;
/// How many of the nearest puzzles a rating request picks among.
pub const NEAR_RATING_CHOICES: usize = 10;

/// The first line of a puzzle file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleHeader {
    /// Always [`PUZZLE_FORMAT`].
    pub format: String,
    /// Always [`PUZZLE_VERSION`].
    pub format_version: u32,
    /// The rule set id.
    pub rules: String,
    /// The least margin, in percentage points of win probability, by which
    /// every puzzle's best move beats every move reaching another position.
    pub margin_pp: f64,
    /// What valued the moves (a solved table, by name and SHA-256).
    pub reference: String,
    /// The seed of the games the puzzles were found in.
    pub seed: u64,
    /// The agents whose games were mined, and those whose wrong choice
    /// makes a position a puzzle.
    pub players: Vec<String>,
    /// The agents a puzzle's natural move comes from.
    pub natural: Vec<String>,
    /// How ratings were measured (the strength dial, its seeds).
    pub rating: String,
    /// The program that wrote the file, with its version.
    pub generator: String,
}

/// One legal move of a puzzle, valued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PuzzleMove {
    /// The move, as the protocol writes it (`{"from":…,"to":…}`).
    #[serde(rename = "move")]
    pub mv: MoveJson,
    /// The mover's exact win probability after it.
    pub value: f64,
}

/// Where the natural move came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NaturalMove {
    /// The move the first erring natural agent chose.
    #[serde(rename = "move")]
    pub mv: MoveJson,
    /// Every natural agent that chose a wrong move.
    pub by: Vec<String>,
}

/// Whether a rating lies outside what the strength dial can measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RatingBound {
    /// Even the dial's weakest setting finds the answer half the time: the
    /// rating is at most this.
    AtMost,
    /// The dial's strongest setting finds it less than half the time: the
    /// rating is at least this (hard's Elo).
    AtLeast,
}

/// One puzzle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Puzzle {
    /// A stable id: the rule set and a hash of the position and roll
    /// (`ur-5c1d0e7a`).
    pub id: String,
    /// The position, as the protocol writes it.
    pub position: PositionJson,
    /// The roll to play.
    pub roll: u8,
    /// The best move.
    pub answer: MoveJson,
    /// Every legal move, in the engine's order, with its exact value.
    pub moves: Vec<PuzzleMove>,
    /// How far the best move beats the best move reaching another
    /// position, in percentage points.
    pub margin_pp: f64,
    /// The themes of the answer: what the best move does and what the
    /// natural move misses (`capture`, `safety`, `extra_roll`, …).
    pub themes: Vec<String>,
    /// The natural move, which is wrong.
    pub natural: NaturalMove,
    /// The strength, on the rule set's Elo scale, at which the strength
    /// dial finds the answer half the time.
    pub rating: f64,
    /// Set when the rating is outside the dial's range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_bound: Option<RatingBound>,
    /// The game the position came from: its number and turn.
    pub game: u64,
    /// The turn of that game (1 is the first roll), as reviews number them.
    pub turn: u32,
}

/// A checked puzzle file.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzleSet {
    /// The header.
    pub header: PuzzleHeader,
    /// The puzzles, in the file's order.
    pub puzzles: Vec<Puzzle>,
}

/// Why a puzzle file was refused.
#[derive(Debug, Error, PartialEq)]
pub enum PuzzleError {
    /// A line is not what the format says.
    #[error("{file} line {line}: {message}")]
    Line {
        /// How the file is named.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file as a whole is refused.
    #[error("{file}: {message}")]
    File {
        /// How the file is named.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// The id a puzzle of `rules` at `position` (its notation or JSON text)
/// with `roll` gets: the rule set, then eight hex digits of the FNV-1a hash
/// of `rules|position|roll`.
pub fn puzzle_id(rules: &str, position: &str, roll: u8) -> String {
    let hash = fnv1a64(format!("{rules}|{position}|{roll}").as_bytes());
    format!("{rules}-{:08x}", hash >> 32)
}

impl PuzzleSet {
    /// Reads a puzzle file (`shown` names it in errors) of `game`'s rule
    /// set and checks every puzzle against the rules (see the module docs).
    pub fn parse<G: Codec>(game: &G, bytes: &[u8], shown: &str) -> Result<PuzzleSet, PuzzleError> {
        let file_error = |message: String| PuzzleError::File {
            file: shown.to_string(),
            message,
        };
        if bytes.len() as u64 > MAX_PUZZLE_FILE_BYTES {
            return Err(file_error(format!(
                "{} bytes; a puzzle file may have at most {MAX_PUZZLE_FILE_BYTES}",
                bytes.len()
            )));
        }
        let text =
            std::str::from_utf8(bytes).map_err(|e| file_error(format!("not UTF-8 text: {e}")))?;
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, first) = lines
            .next()
            .ok_or_else(|| file_error("empty; the first line is the header".into()))?;
        let line_error = |line: usize, message: String| PuzzleError::Line {
            file: shown.to_string(),
            line: line + 1,
            message,
        };
        let header: PuzzleHeader =
            serde_json::from_str(first).map_err(|e| line_error(0, format!("header: {e}")))?;
        if header.format != PUZZLE_FORMAT || header.format_version != PUZZLE_VERSION {
            return Err(line_error(
                0,
                format!(
                    "format {:?} version {}; this build reads {PUZZLE_FORMAT:?} version {PUZZLE_VERSION}",
                    header.format, header.format_version
                ),
            ));
        }
        if header.rules != game.name() {
            return Err(line_error(
                0,
                format!("puzzles of {}, not of {}", header.rules, game.name()),
            ));
        }
        if !(header.margin_pp.is_finite() && header.margin_pp > 0.0) {
            return Err(line_error(0, "margin_pp must be a positive number".into()));
        }
        let mut puzzles = Vec::new();
        let mut ids = std::collections::HashSet::new();
        for (number, line) in lines {
            if puzzles.len() == MAX_PUZZLES {
                return Err(file_error(format!("more than {MAX_PUZZLES} puzzles")));
            }
            let puzzle: Puzzle =
                serde_json::from_str(line).map_err(|e| line_error(number, e.to_string()))?;
            puzzle
                .check(game, header.margin_pp)
                .map_err(|message| line_error(number, format!("{}: {message}", puzzle.id)))?;
            if !ids.insert(puzzle.id.clone()) {
                return Err(line_error(number, format!("{} appears twice", puzzle.id)));
            }
            puzzles.push(puzzle);
        }
        if puzzles.is_empty() {
            return Err(file_error("no puzzles after the header".into()));
        }
        Ok(PuzzleSet { header, puzzles })
    }

    /// The file's text: the header line, then one line per puzzle.
    pub fn to_jsonl(&self) -> String {
        let mut text = String::new();
        let mut line = |value: String| {
            text.push_str(&value);
            text.push('\n');
        };
        line(serde_json::to_string(&self.header).unwrap_or_default());
        for puzzle in &self.puzzles {
            line(serde_json::to_string(puzzle).unwrap_or_default());
        }
        text
    }

    /// The puzzle called `id`.
    pub fn by_id(&self, id: &str) -> Option<&Puzzle> {
        self.puzzles.iter().find(|p| p.id == id)
    }

    /// The puzzle of the day: a pure function of the rule set and the date
    /// (`YYYY-MM-DD`). Its index is the first SplitMix64 output, seeded by
    /// the FNV-1a hash of `puzzle:RULES:DATE`, modulo the number of puzzles
    /// (the same steps as Senet's daily game, `sawah_engine::senet::daily`).
    pub fn daily(&self, date: &str) -> Result<&Puzzle, String> {
        check_date(date).map_err(|e| e.to_string())?;
        let key = format!("puzzle:{}:{date}", self.header.rules);
        let draw = SplitMix64::new(fnv1a64(key.as_bytes())).next_u64();
        Ok(&self.puzzles[(draw % self.puzzles.len() as u64) as usize])
    }

    /// One of the [`NEAR_RATING_CHOICES`] puzzles rated nearest `rating`
    /// (ties in file order), picked by `seed` (seed 0: the nearest).
    pub fn near_rating(&self, rating: f64, seed: u64) -> &Puzzle {
        let mut order: Vec<&Puzzle> = self.puzzles.iter().collect();
        order.sort_by(|a, b| {
            (a.rating - rating)
                .abs()
                .total_cmp(&(b.rating - rating).abs())
        });
        let choices = order.len().min(NEAR_RATING_CHOICES);
        let pick = if seed == 0 {
            0
        } else {
            (SplitMix64::new(seed).next_u64() % choices as u64) as usize
        };
        order[pick]
    }
}

impl Puzzle {
    /// The position and its legal moves, checked: the position is valid,
    /// the roll is one of the dice's, and the moves are exactly the legal
    /// moves in the engine's order.
    pub fn replay<G: Codec>(&self, game: &G) -> Result<(G::Position, Vec<G::Move>), String> {
        let position = game
            .position_from_json(&self.position)
            .map_err(|e| format!("position: {e}"))?;
        if game.winner(&position).is_some() {
            return Err("the game is over in this position".into());
        }
        if !game.dice().outcomes().any(|(roll, _)| roll == self.roll) {
            return Err(format!(
                "roll {} is not a roll of {}",
                self.roll,
                game.name()
            ));
        }
        let moves = game.legal_moves(&position, self.roll);
        let listed: Vec<&MoveJson> = self.moves.iter().map(|m| &m.mv).collect();
        let legal: Vec<MoveJson> = moves.iter().map(|&m| game.move_json(m)).collect();
        if listed.len() != legal.len() || listed.iter().zip(&legal).any(|(a, b)| *a != b) {
            return Err(format!(
                "its moves are not the {} legal moves of roll {} in order",
                legal.len(),
                self.roll
            ));
        }
        Ok((position, moves.to_vec()))
    }

    /// The index (in [`Puzzle::moves`]) of a move given as the protocol
    /// writes it.
    pub fn index_of(&self, mv: &MoveJson) -> Option<usize> {
        self.moves.iter().position(|m| m.mv == *mv)
    }

    /// Checks the puzzle against the rules and `margin_pp`: the moves are
    /// the legal moves, the answer is the best of them, and it beats every
    /// move reaching another position by its own margin, which is at least
    /// `margin_pp`.
    pub fn check<G: Codec>(&self, game: &G, margin_pp: f64) -> Result<(), String> {
        let (position, moves) = self.replay(game)?;
        if moves.len() < 2 {
            return Err("fewer than two legal moves".into());
        }
        if self.moves.iter().any(|m| !(0.0..=1.0).contains(&m.value)) {
            return Err("a value is not a probability".into());
        }
        let answer = self
            .index_of(&self.answer)
            .ok_or("the answer is not one of its moves")?;
        let values: Vec<f64> = self.moves.iter().map(|m| m.value).collect();
        let margin = margin_of(game, &position, &moves, &values, answer)
            .ok_or("every legal move reaches the same position")?;
        if (margin - self.margin_pp).abs() > 1e-6 {
            return Err(format!(
                "its margin is {margin:.6} pp by its values, not {:.6}",
                self.margin_pp
            ));
        }
        if margin < margin_pp {
            return Err(format!(
                "its margin, {margin:.3} pp, is below the file's {margin_pp} pp"
            ));
        }
        let natural = self
            .index_of(&self.natural.mv)
            .ok_or("the natural move is not one of its moves")?;
        if same_result(game, &position, moves[natural], moves[answer]) {
            return Err("the natural move is the answer".into());
        }
        if !self.rating.is_finite() {
            return Err("the rating is not a number".into());
        }
        Ok(())
    }
}

/// Whether two moves from `position` lead to the same position (and the
/// same player to move).
pub fn same_result<G: Game>(game: &G, position: &G::Position, a: G::Move, b: G::Move) -> bool {
    game.apply(position, a).position == game.apply(position, b).position
}

/// By how much (in percentage points) move `best` beats the best of the
/// moves that reach another position; `None` when every move reaches the
/// same one. Negative when another move is better.
pub fn margin_of<G: Game>(
    game: &G,
    position: &G::Position,
    moves: &[G::Move],
    values: &[f64],
    best: usize,
) -> Option<f64> {
    let target = game.apply(position, moves[best]).position;
    moves
        .iter()
        .zip(values)
        .filter(|(mv, _)| game.apply(position, **mv).position != target)
        .map(|(_, &v)| v)
        .reduce(f64::max)
        .map(|second| 100.0 * (values[best] - second))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race::RuleSet;

    fn ur() -> RuleSet {
        sawah_engine::race::preset("ur").unwrap()
    }

    /// A one-puzzle file of ur, with values made up for the test.
    fn sample() -> (RuleSet, PuzzleSet) {
        let game = ur();
        let roll = 2;
        let json = |m| game.move_json(m);
        let notation = sawah_engine::notation::parse("ur light 5/4,6/0 7/-/0").unwrap();
        let position = game.position_from_json(&notation).unwrap();
        let moves = game.legal_moves(&position, roll);
        assert!(moves.len() >= 2);
        let listed: Vec<PuzzleMove> = moves
            .iter()
            .enumerate()
            .map(|(i, &m)| PuzzleMove {
                mv: json(m),
                value: if i == 0 { 0.6 } else { 0.5 },
            })
            .collect();
        let values: Vec<f64> = listed.iter().map(|m| m.value).collect();
        let margin = margin_of(&game, &position, &moves, &values, 0).unwrap();
        let puzzle = Puzzle {
            id: puzzle_id("ur", "x", roll),
            position: game.position_to_json(&position),
            roll,
            answer: json(moves[0]),
            moves: listed,
            margin_pp: margin,
            themes: vec!["race".into()],
            natural: NaturalMove {
                mv: json(moves[1]),
                by: vec!["heuristic".into()],
            },
            rating: 500.0,
            rating_bound: None,
            game: 0,
            turn: 7,
        };
        let header = PuzzleHeader {
            format: PUZZLE_FORMAT.into(),
            format_version: PUZZLE_VERSION,
            rules: "ur".into(),
            margin_pp: 5.0,
            reference: "made up".into(),
            seed: 1,
            players: vec![],
            natural: vec!["heuristic".into()],
            rating: "made up".into(),
            generator: "test".into(),
        };
        (
            game,
            PuzzleSet {
                header,
                puzzles: vec![puzzle],
            },
        )
    }

    #[test]
    fn a_written_set_reads_back_the_same() {
        let (game, set) = sample();
        let text = set.to_jsonl();
        assert_eq!(PuzzleSet::parse(&game, text.as_bytes(), "p").unwrap(), set);
    }

    #[test]
    fn a_set_is_refused_for_another_rule_set_format_or_a_doctored_puzzle() {
        let (game, set) = sample();
        let text = set.to_jsonl();
        let sawah = sawah_engine::race::preset("sawah").unwrap();
        let e = PuzzleSet::parse(&sawah, text.as_bytes(), "p").unwrap_err();
        assert!(e.to_string().contains("puzzles of ur, not of sawah"), "{e}");
        let e = PuzzleSet::parse(
            &game,
            text.replace("\"format_version\":1", "\"format_version\":9")
                .as_bytes(),
            "p",
        )
        .unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        // The answer swapped for a worse move.
        let mut bad = set.clone();
        bad.puzzles[0].answer = bad.puzzles[0].moves[1].mv;
        let e = PuzzleSet::parse(&game, bad.to_jsonl().as_bytes(), "p").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        // A margin below the file's.
        let mut bad = set.clone();
        bad.header.margin_pp = 50.0;
        let e = PuzzleSet::parse(&game, bad.to_jsonl().as_bytes(), "p").unwrap_err();
        assert!(e.to_string().contains("below the file's 50 pp"), "{e}");
        // A move that is not legal.
        let mut bad = set.clone();
        bad.puzzles[0].moves.pop();
        let e = PuzzleSet::parse(&game, bad.to_jsonl().as_bytes(), "p").unwrap_err();
        assert!(e.to_string().contains("legal moves"), "{e}");
        // Twice the same id.
        let mut bad = set.clone();
        bad.puzzles.push(bad.puzzles[0].clone());
        let e = PuzzleSet::parse(&game, bad.to_jsonl().as_bytes(), "p").unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");
        for garbage in ["", "{", "\u{0}"] {
            assert!(PuzzleSet::parse(&game, garbage.as_bytes(), "p").is_err());
        }
    }

    #[test]
    fn the_daily_puzzle_is_a_pure_function_of_rules_and_date() {
        let (_, mut set) = sample();
        for i in 0..9 {
            let mut p = set.puzzles[0].clone();
            p.id = format!("ur-{i}");
            set.puzzles.push(p);
        }
        let a = set.daily("2026-12-05").unwrap().id.clone();
        assert_eq!(set.daily("2026-12-05").unwrap().id, a);
        let days: std::collections::HashSet<String> = (1..=28)
            .map(|d| set.daily(&format!("2026-02-{d:02}")).unwrap().id.clone())
            .collect();
        assert!(days.len() > 3, "a month of days gives several puzzles");
        assert!(set.daily("2026-02-30").is_err());
        // The index is the first SplitMix64 output of FNV-1a("puzzle:ur:DATE").
        let draw = SplitMix64::new(fnv1a64(b"puzzle:ur:2026-12-05")).next_u64();
        assert_eq!(a, set.puzzles[(draw % 10) as usize].id);
    }

    #[test]
    fn near_rating_picks_among_the_nearest() {
        let (_, mut set) = sample();
        set.puzzles.clear();
        for i in 0..40 {
            let (_, s) = sample();
            let mut p = s.puzzles[0].clone();
            p.id = format!("ur-{i}");
            p.rating = f64::from(i) * 50.0;
            set.puzzles.push(p);
        }
        assert_eq!(set.near_rating(610.0, 0).rating, 600.0);
        for seed in 1..50 {
            assert!((set.near_rating(610.0, seed).rating - 610.0).abs() <= 260.0);
        }
    }
}
