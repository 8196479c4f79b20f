//! RGN, the Royal Game Notation of RoyalUr (royalur.net): games of the race
//! family read and written as RoyalUr writes them, so that players and bot
//! authors can move games between the two systems.
//!
//! The form followed is the writer of RoyalUr's Java library (`RGN.java`,
//! RosetteGames/royalur-java), which is the reference: RoyalUr has not
//! published a reader. A game is
//!
//! ```text
//! [Rules ur]
//! [Light hard]
//!
//! 1. A@A4 * / C@C2
//! 2. A4B1 / C2C4 * C4B3x
//! 3. 0 -- / B3A+#
//! ```
//!
//! * **Tags**, `[KEY VALUE]`, one a line, then a blank line. A key or value
//!   that is not a letter followed by letters, digits, `_`, `.` or `-` is
//!   quoted, with `\"`, `\\`, `\r` and `\n` escaped.
//! * **Turns**: light's turn `N. ` with its actions, then dark's after
//!   `/ `; each pair of turns on a line (a turn longer than 60 characters
//!   breaks onto the next). An extra roll is another action in the same
//!   turn.
//! * **Actions**: a move is its source and destination tiles; a roll with
//!   no legal move is the roll and ` --`. A tile is a letter for the
//!   board's row (`A` light's row, `B` the middle, `C` dark's) and the
//!   column counted from 1 at the end where pieces enter. A piece entering
//!   comes from `A@` (light) or `C@` (dark): the letter of the route's
//!   first row; one borne off goes to `A+` or `C+`. `x` after the
//!   destination marks a capture, ` *` a landing on a rosette (a mark), and
//!   `#` the move that ended the game. The roll of a move is its distance.
//!
//! The rule set is not part of RoyalUr's notation; these files carry it
//! in a `Rules` tag (a rule set name: `ur`, `blitz`, …), and the players in
//! `Light` and `Dark`. Any other tag is kept as read. Every race rule set
//! can be written; Senet cannot (its board is one track of thirty squares
//! with no rows as RGN names them), and is refused with that reason.

use crate::player::Player;
use crate::race::{Cell, Move, Position, RuleSet};
use crate::record::{Record, RecordError, ReplayError, move_token, replay};
use crate::registry::{AnyGame, Registry};
use serde_json::{Value, json};
use std::sync::Arc;
use thiserror::Error;

/// The tag that names the rule set.
pub const RULES_TAG: &str = "Rules";
/// The tag that names light's player.
pub const LIGHT_TAG: &str = "Light";
/// The tag that names dark's player.
pub const DARK_TAG: &str = "Dark";
/// A turn longer than this many characters breaks onto another line, as
/// RoyalUr's writer does.
const MAX_TURN_LINE: usize = 60;
/// The most tags one game may have; a game with more is refused (a game
/// of RGN needs a handful: Rules, Light, Dark, Seed, Result, …).
pub const MAX_TAGS: usize = 1_000;
/// The longest tag line, in bytes.
pub const MAX_TAG_LINE: usize = 4_096;
/// The most moves (rolls) one game may have: a game stops at 100,000
/// rolls in tournaments.
pub const MAX_ACTIONS: usize = 100_000;

/// A game read from RGN: its tags in order and its moves as record tokens
/// (`ROLL:FROM-TO`, `ROLL:pass`; see [`crate::record`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgnGame {
    /// The tags as written, in order.
    pub tags: Vec<(String, String)>,
    /// The moves, replayed and checked, as record tokens.
    pub moves: Vec<String>,
}

impl RgnGame {
    /// The value of the tag `key`, if the game has it.
    pub fn tag(&self, key: &str) -> Option<&str> {
        tag_value(&self.tags, key)
    }
}

fn tag_value<'a>(tags: &'a [(String, String)], key: &str) -> Option<&'a str> {
    tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Why an RGN text could not be read or a game could not be written.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RgnError {
    /// A line of tags or a word of the moves that is not RGN (the message
    /// quotes what it read, cut to 300 characters and escaped).
    #[error("RGN line {line}: {}", crate::text::printable(message, 300))]
    Syntax {
        /// The line, from 1.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// No `Rules` tag, so the moves cannot be read.
    #[error(
        "the RGN game has no [Rules NAME] tag: RoyalUr's notation does not name the rule set, so add one (for example [Rules ur] for RoyalUr's Finkel rules, [Rules blitz], [Rules aseb] or [Rules masters-3dice])"
    )]
    NoRules,
    /// An action that the rules do not allow where it stands.
    #[error("RGN action {number} ({text:?}): {message}")]
    Action {
        /// The action, from 1.
        number: usize,
        /// The action as written.
        text: String,
        /// What was wrong.
        message: String,
    },
    /// A rule set RGN cannot express.
    #[error("{0}")]
    Unsupported(String),
    /// Moves to write that do not replay.
    #[error("the game does not replay: {0}")]
    Replay(#[from] ReplayError),
    /// A game record to write that is not one.
    #[error("the game record: {0}")]
    Record(#[from] RecordError),
}

/// Whether `path` names an RGN file (ends in `.rgn`, any case): where the
/// command line reads or writes RGN instead of a JSON game record.
pub fn is_rgn_file(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("rgn"))
}

/// Refusal for Senet, named by the callers that hold any rule set.
pub fn senet_unsupported() -> RgnError {
    RgnError::Unsupported(
        "RGN writes the Royal Game of Ur's family: boards of rows named A, B, C and pieces entering and leaving the board; Senet's thirty squares in one track with no entering have no RGN form (use the JSON game record)".to_string(),
    )
}

/// A tile as RGN writes it: the row's letter and the column from 1.
fn tile_text(cell: Cell) -> String {
    format!("{}{}", row_letter(cell.row), cell.col as u32 + 1)
}

fn row_letter(row: u8) -> char {
    char::from(b'A' + row)
}

/// Checks that every cell of `rules` has an RGN name (rows A to Z).
fn check_expressible(rules: &RuleSet) -> Result<(), RgnError> {
    if rules.board().iter().any(|cell| cell.row >= 26) {
        return Err(RgnError::Unsupported(format!(
            "rule set {}: RGN names rows by the letters A to Z, and this board has more than 26 rows",
            rules.name()
        )));
    }
    Ok(())
}

/// The letter of the off-board tile `player`'s pieces enter from and
/// leave to: the row of the route's first square (`A` or `C` on every
/// preset), as RoyalUr's paths begin and end beside the player's own row.
fn home_letter(rules: &RuleSet, player: Player) -> char {
    row_letter(rules.route(player)[0].row)
}

/// The text of `mv` by `player` in `position` (before the move), without
/// the game's end mark.
fn move_text(rules: &RuleSet, position: &Position, mv: Move) -> String {
    let player = position.turn();
    let mut text = if mv.from == 0 {
        format!("{}@", home_letter(rules, player))
    } else {
        tile_text(rules.cell(player, mv.from))
    };
    if mv.to == rules.off() {
        text.push(home_letter(rules, player));
        text.push('+');
    } else {
        text.push_str(&tile_text(rules.cell(player, mv.to)));
    }
    if rules.apply(position, mv).captured {
        text.push('x');
    }
    if mv.to != rules.off() && rules.is_marked_square(player, mv.to) {
        text.push_str(" *");
    }
    text
}

/// Quotes `value` where RGN needs it (see the module's documentation).
pub fn escape(value: &str) -> String {
    let mut chars = value.chars();
    let bare = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if bare {
        return value.to_string();
    }
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One replayed action, ready to write.
struct Written {
    player: Player,
    text: String,
}

/// Writes a game of `rules` as RGN: `tags` in order, then the moves
/// (record tokens, replayed and checked from the start).
pub fn write(
    rules: &RuleSet,
    tags: &[(String, String)],
    tokens: &[String],
) -> Result<String, RgnError> {
    check_expressible(rules)?;
    let mut actions = Vec::with_capacity(tokens.len());
    let end = replay(rules, tokens, |step| {
        let text = match step.played {
            None => format!("{} --", step.roll),
            Some(mv) => move_text(rules, step.position, mv),
        };
        actions.push(Written {
            player: step.position.turn(),
            text,
        });
    })?;
    let mut out = String::new();
    for (key, value) in tags {
        out.push_str(&format!("[{} {}]\n", escape(key), escape(value)));
    }
    if !tags.is_empty() {
        out.push('\n');
    }
    out.push_str(&moves_text(&actions, rules.winner(&end).is_some()));
    Ok(out)
}

/// The move lines: turn numbers, `/` before dark's turns, a pair of turns
/// a line, long turns broken at [`MAX_TURN_LINE`] characters, `#` after
/// the last action of a finished game.
fn moves_text(actions: &[Written], finished: bool) -> String {
    let mut out = String::new();
    let mut line = String::new();
    let (mut line_len, mut turns, mut first) = (0usize, 0usize, true);
    let mut current: Option<Player> = None;
    for (k, action) in actions.iter().enumerate() {
        let mut text = String::new();
        if current != Some(action.player) {
            turns += 1;
            current = Some(action.player);
            match action.player {
                Player::Light => text.push_str(&format!("{}. ", turns.div_ceil(2))),
                Player::Dark => text.push_str("/ "),
            }
        }
        text.push_str(&action.text);
        let last = k + 1 == actions.len();
        if last && finished {
            text.push('#');
        }
        line_len += text.len();
        if !line.is_empty() {
            if line_len + 1 < MAX_TURN_LINE {
                line.push(' ');
                line_len += 1;
            } else {
                line.push('\n');
                line_len = text.len();
            }
        }
        line.push_str(&text);
        let next = actions.get(k + 1).map(|a| a.player);
        if last || (action.player == Player::Dark && next != Some(Player::Dark)) {
            if !first {
                out.push('\n');
            }
            first = false;
            out.push_str(&line);
            line.clear();
            line_len = 0;
        }
    }
    out
}

/// An action as read, before the rules give it meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    /// A move: `None` is off the board (entering from, borne off to).
    Move {
        from: Option<Cell>,
        to: Option<Cell>,
        capture: bool,
        rosette: bool,
    },
    /// A roll with no legal move.
    Pass { roll: u8 },
}

/// An action with where it was written.
#[derive(Clone, Debug)]
struct Read {
    action: Action,
    text: String,
    ends: bool,
}

/// Reads an RGN game of `rules`: its tags, and its actions replayed from
/// the start (each must be legal, and its capture and rosette marks must
/// be what the rules say). The `Rules` tag, if any, is not checked here:
/// see [`read_tags`] to choose the rule set first.
pub fn read(rules: &RuleSet, text: &str) -> Result<RgnGame, RgnError> {
    check_expressible(rules)?;
    let (tags, body_start) = parse_tags(text)?;
    let actions = parse_actions(text, body_start)?;
    let moves = replay_actions(rules, &actions)?;
    Ok(RgnGame { tags, moves })
}

/// The tags of an RGN text (to find its rule set before reading it).
pub fn read_tags(text: &str) -> Result<Vec<(String, String)>, RgnError> {
    Ok(parse_tags(text)?.0)
}

/// The rule set named by an RGN text's `Rules` tag.
pub fn rules_name(text: &str) -> Result<String, RgnError> {
    let tags = read_tags(text)?;
    tag_value(&tags, RULES_TAG)
        .map(str::to_string)
        .ok_or(RgnError::NoRules)
}

/// The tags at the top of `text`, and the line the moves start on (from 0).
fn parse_tags(text: &str) -> Result<(Vec<(String, String)>, usize), RgnError> {
    let mut tags = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() && tags.is_empty() {
            continue;
        }
        let Some(inner) = line.strip_prefix('[') else {
            return Ok((tags, k));
        };
        let syntax = |message: &str| RgnError::Syntax {
            line: k + 1,
            message: message.to_string(),
        };
        if tags.len() >= MAX_TAGS {
            return Err(syntax(&format!(
                "more than {MAX_TAGS} tags; a game has at most {MAX_TAGS}"
            )));
        }
        if line.len() > MAX_TAG_LINE {
            return Err(syntax(&format!(
                "a tag of {} bytes; a tag line has at most {MAX_TAG_LINE}",
                line.len()
            )));
        }
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| syntax("a tag is [KEY VALUE] on one line"))?;
        let (key, rest) = take_word(inner).map_err(|m| syntax(&m))?;
        let (value, rest) = take_word(rest.trim_start()).map_err(|m| syntax(&m))?;
        if !rest.trim().is_empty() {
            return Err(syntax("a tag is [KEY VALUE]: something follows the value"));
        }
        if key.is_empty() {
            return Err(syntax("a tag needs a key"));
        }
        tags.push((key, value));
    }
    Ok((tags, text.lines().count()))
}

/// One word of a tag: bare up to a space, or quoted with escapes. Returns
/// it and the rest.
fn take_word(text: &str) -> Result<(String, &str), String> {
    let Some(quoted) = text.strip_prefix('"') else {
        let end = text.find(char::is_whitespace).unwrap_or(text.len());
        return Ok((text[..end].to_string(), &text[end..]));
    };
    let mut word = String::new();
    let mut chars = quoted.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((word, &quoted[at + 1..])),
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('"') => word.push('"'),
                Some('\\') => word.push('\\'),
                Some('r') => word.push('\r'),
                Some('n') => word.push('\n'),
                other => {
                    return Err(format!(
                        "unknown escape \\{} in a quoted tag",
                        other.map(String::from).unwrap_or_default()
                    ));
                }
            },
            c => word.push(c),
        }
    }
    Err("a quoted tag word has no closing quote".to_string())
}

/// The actions of the lines from `first_line` on.
fn parse_actions(text: &str, first_line: usize) -> Result<Vec<Read>, RgnError> {
    let mut actions: Vec<Read> = Vec::new();
    let mut pending_roll: Option<(u8, String)> = None;
    for (k, line) in text.lines().enumerate().skip(first_line) {
        let syntax = |message: String| RgnError::Syntax {
            line: k + 1,
            message,
        };
        for word in line.split_whitespace() {
            if let Some((roll, written)) = pending_roll.take() {
                let ends = match word {
                    "--" => false,
                    "--#" => true,
                    _ => {
                        return Err(syntax(format!(
                            "{written:?} {word:?}: a roll alone is followed by \"--\" (no legal move)"
                        )));
                    }
                };
                actions.push(Read {
                    action: Action::Pass { roll },
                    text: format!("{written} {word}"),
                    ends,
                });
                continue;
            }
            if word == "/" || is_turn_number(word) {
                continue;
            }
            if word == "*" || word == "*#" {
                let Some(Read {
                    action: Action::Move { rosette, .. },
                    text,
                    ends,
                }) = actions.last_mut()
                else {
                    return Err(syntax(format!("{word:?} follows no move")));
                };
                *rosette = true;
                text.push(' ');
                text.push_str(word);
                *ends |= word == "*#";
                continue;
            }
            if word.bytes().all(|b| b.is_ascii_digit()) {
                let roll = word
                    .parse()
                    .map_err(|_| syntax(format!("{word:?}: no such roll")))?;
                pending_roll = Some((roll, word.to_string()));
                continue;
            }
            if actions.len() >= MAX_ACTIONS {
                return Err(syntax(format!(
                    "more than {MAX_ACTIONS} moves; a game has at most {MAX_ACTIONS}"
                )));
            }
            let (action, ends) = parse_move(word).map_err(syntax)?;
            actions.push(Read {
                action,
                text: word.to_string(),
                ends,
            });
        }
    }
    if let Some((_, written)) = pending_roll {
        return Err(RgnError::Syntax {
            line: text.lines().count(),
            message: format!("{written:?} at the end: a roll alone is followed by \"--\""),
        });
    }
    Ok(actions)
}

fn is_turn_number(word: &str) -> bool {
    word.strip_suffix('.')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A move word: `A4B1`, `A@A4`, `B8A+`, with `x` and `#` after it.
fn parse_move(word: &str) -> Result<(Action, bool), String> {
    let bad = || {
        format!(
            "{word:?} is not an RGN action: a move is two tiles such as A4B1 (A@ entering, A+ borne off, x a capture, # the end), a roll with no move is \"N --\""
        )
    };
    let (body, ends) = match word.strip_suffix('#') {
        Some(body) => (body, true),
        None => (word, false),
    };
    let (body, capture) = match body.strip_suffix('x') {
        Some(body) => (body, true),
        None => (body, false),
    };
    let (from, rest) = parse_tile(body, '@').ok_or_else(bad)?;
    let (to, rest) = parse_tile(rest, '+').ok_or_else(bad)?;
    if !rest.is_empty() {
        return Err(bad());
    }
    let action = Action::Move {
        from,
        to,
        capture,
        rosette: false,
    };
    Ok((action, ends))
}

/// A tile at the start of `text`, or a letter and `off` (`@`, `+`): the
/// cell (`None` off the board) and the rest.
fn parse_tile(text: &str, off: char) -> Option<(Option<Cell>, &str)> {
    let letter = text.chars().next().filter(char::is_ascii_alphabetic)?;
    let row = letter.to_ascii_uppercase() as u8 - b'A';
    let rest = &text[1..];
    if let Some(rest) = rest.strip_prefix(off) {
        return Some((None, rest));
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let col: u32 = rest[..digits].parse().ok()?;
    if !(1..=256).contains(&col) {
        return None;
    }
    Some((Some(Cell::new(row, (col - 1) as u8)), &rest[digits..]))
}

/// The square of `cell` on `player`'s route (from 1), if it is on it.
fn square_of(rules: &RuleSet, player: Player, cell: Cell) -> Option<u8> {
    rules
        .route(player)
        .iter()
        .position(|&c| c == cell)
        .map(|k| k as u8 + 1)
}

/// Replays the actions from the start, checking each, into record tokens.
fn replay_actions(rules: &RuleSet, actions: &[Read]) -> Result<Vec<String>, RgnError> {
    let mut position = rules.start();
    let mut tokens = Vec::with_capacity(actions.len());
    for (k, read) in actions.iter().enumerate() {
        let bad = |message: String| RgnError::Action {
            number: k + 1,
            text: read.text.clone(),
            message,
        };
        if rules.winner(&position).is_some() {
            return Err(bad("the game was already over".to_string()));
        }
        let (token, next) = replay_action(rules, &position, &read.action).map_err(bad)?;
        let over = rules.winner(&next).is_some();
        if read.ends && !over {
            return Err(bad("marked # (the end), but the game goes on".to_string()));
        }
        tokens.push(token);
        position = next;
    }
    Ok(tokens)
}

/// One action in `position`: its token and the position after it.
fn replay_action(
    rules: &RuleSet,
    position: &Position,
    action: &Action,
) -> Result<(String, Position), String> {
    let player = position.turn();
    match *action {
        Action::Pass { roll } => {
            if rules.dice().probability(roll) == 0.0 {
                return Err(format!("the dice cannot show {roll}"));
            }
            if !rules.legal_moves(position, roll).is_empty() {
                return Err(format!("{player} had a legal move with {roll}"));
            }
            Ok((move_token(rules, roll, None), rules.pass(position)))
        }
        Action::Move {
            from,
            to,
            capture,
            rosette,
        } => {
            let square = |cell: Option<Cell>, off: u8| match cell {
                None => Ok(off),
                Some(cell) => square_of(rules, player, cell)
                    .ok_or_else(|| format!("{} is not on {player}'s route", tile_text(cell))),
            };
            let mv = Move {
                from: square(from, 0)?,
                to: square(to, rules.off())?,
            };
            if mv.to <= mv.from {
                return Err(format!("not a legal move for {player}: it goes backwards"));
            }
            let roll = mv.to - mv.from;
            if rules.dice().probability(roll) == 0.0 {
                return Err(format!(
                    "a move of {roll} squares, which the dice cannot show"
                ));
            }
            if !rules.legal_moves(position, roll).contains(&mv) {
                return Err(format!("not a legal move for {player} here"));
            }
            let outcome = rules.apply(position, mv);
            if outcome.captured != capture {
                return Err(match capture {
                    true => "marked x (a capture), but it captures nothing".to_string(),
                    false => "it captures, but is not marked x".to_string(),
                });
            }
            let marked = mv.to != rules.off() && rules.is_marked_square(player, mv.to);
            if marked != rosette {
                return Err(match rosette {
                    true => "marked * (a rosette), but it does not end on one".to_string(),
                    false => "it ends on a rosette, but is not marked *".to_string(),
                });
            }
            Ok((move_token(rules, roll, Some(mv)), outcome.position))
        }
    }
}

/// The race rule set `name` of `registry`; Senet and unknown names are
/// refused with the reason.
fn race_rules(registry: &Registry, name: &str) -> Result<Arc<RuleSet>, RgnError> {
    match registry.get(name) {
        Ok(AnyGame::Race(rules)) => Ok(rules),
        Ok(AnyGame::Senet(_)) => Err(senet_unsupported()),
        Err(unknown) => Err(RgnError::Unsupported(unknown.to_string())),
    }
}

/// The game of rule set `rules` (a name in `registry`) played by the
/// `moves` tokens, as RGN: its `Rules` tag, then `tags` in order.
pub fn from_moves(
    registry: &Registry,
    rules: &str,
    tags: &[(String, String)],
    moves: &[String],
) -> Result<String, RgnError> {
    let set = race_rules(registry, rules)?;
    let all: Vec<(String, String)> = std::iter::once((RULES_TAG.to_string(), rules.to_string()))
        .chain(tags.iter().cloned())
        .collect();
    write(&set, &all, moves)
}

/// An RGN text as a game record (docs/protocol.md, "Game records"):
/// `rules` from its `Rules` tag, `moves` as tokens, `light` and `dark` from
/// its `Light` and `Dark` tags, and every tag in order as `tags` (pairs),
/// so that [`from_record`] writes the same text back.
pub fn to_record(registry: &Registry, text: &str) -> Result<Value, RgnError> {
    let name = rules_name(text)?;
    let rules = race_rules(registry, &name)?;
    let game = read(&rules, text)?;
    let mut record = json!({"rules": name, "moves": game.moves, "tags": game.tags});
    for (tag, field) in [(LIGHT_TAG, "light"), (DARK_TAG, "dark")] {
        if let Some(player) = game.tag(tag) {
            record[field] = Value::from(player);
        }
    }
    Ok(record)
}

/// A game record (JSON, or a line of a tournament's results) as RGN. Its
/// `tags`, when it has them (a record read from RGN), are written as they
/// were; otherwise `Rules`, and `Light`, `Dark`, `Pair`, `Seed`, `Winner`
/// and `Failure` from the record's fields where it has them.
pub fn from_record(registry: &Registry, record: &Value) -> Result<String, RgnError> {
    let parsed = Record::from_json(record)?;
    if parsed.start.is_some() {
        return Err(RgnError::Unsupported(
            "RGN games begin at the start position; this record starts from another (\"start\"), so write it as JSON".to_string(),
        ));
    }
    let rules = race_rules(registry, &parsed.rules)?;
    let tags = match record_tags(record)? {
        Some(tags) => match tag_value(&tags, RULES_TAG) {
            Some(name) if name != parsed.rules => {
                return Err(RgnError::Unsupported(format!(
                    "the record's tags name rule set {name:?}, its \"rules\" {:?}",
                    parsed.rules
                )));
            }
            _ => tags,
        },
        None => fields_as_tags(record, &parsed.rules),
    };
    write(&rules, &tags, &parsed.moves)
}

/// The record's `tags`, if it has them: a list of `[KEY, VALUE]` strings.
fn record_tags(record: &Value) -> Result<Option<Vec<(String, String)>>, RgnError> {
    let Some(list) = record.get("tags") else {
        return Ok(None);
    };
    let pair = |item: &Value| match item.as_array().map(Vec::as_slice) {
        Some([Value::String(k), Value::String(v)]) => Some((k.clone(), v.clone())),
        _ => None,
    };
    list.as_array()
        .and_then(|items| items.iter().map(pair).collect::<Option<Vec<_>>>())
        .map(Some)
        .ok_or_else(|| {
            RgnError::Record(RecordError::Shape(
                "\"tags\" must be a list of [KEY, VALUE] strings".to_string(),
            ))
        })
}

/// Tags from a record's own fields: its rule set, and who played, the
/// dice and the result where the record says.
fn fields_as_tags(record: &Value, rules: &str) -> Vec<(String, String)> {
    let mut tags = vec![(RULES_TAG.to_string(), rules.to_string())];
    for (field, tag) in [
        ("light", LIGHT_TAG),
        ("dark", DARK_TAG),
        ("pair", "Pair"),
        ("seed", "Seed"),
        ("winner", "Winner"),
        ("failure", "Failure"),
    ] {
        let text = match record.get(field) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        tags.push((tag.to_string(), text));
    }
    tags
}

#[cfg(test)]
mod tests;
