//! Rules as data: one [`RuleSet`] value drives every race rule set.
//!
//! A [`RuleSpec`] is the loosely typed description (what a TOML or JSON rule
//! file holds); [`RuleSet::new`] validates it once and precomputes the tables
//! move generation uses, after which the rule set is trusted.

use crate::dice::{Dice, DiceError};
use crate::player::{ByPlayer, Player};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use thiserror::Error;

/// Longest supported route: squares are bits 1..=L of a `u32`, and L+1 is "off".
pub const MAX_ROUTE_LEN: usize = 30;
/// Most pieces a side may have.
pub const MAX_PIECES: u8 = 15;

/// A board cell: row 0 is light's outer row, row 1 the middle row, row 2 dark's.
/// Written `[row, column]` in JSON and TOML.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(from = "(u8, u8)", into = "(u8, u8)")]
pub struct Cell {
    /// Row, from light's side.
    pub row: u8,
    /// Column, from the end where the pieces enter.
    pub col: u8,
}

impl Cell {
    /// The cell at `row`, `col`.
    pub const fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }
}

impl From<(u8, u8)> for Cell {
    fn from((row, col): (u8, u8)) -> Cell {
        Cell { row, col }
    }
}

impl From<Cell> for (u8, u8) {
    fn from(cell: Cell) -> (u8, u8) {
        (cell.row, cell.col)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.row, self.col)
    }
}

/// The marked cells (rosettes) and what they do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Marks {
    /// The marked cells.
    pub cells: Vec<Cell>,
    /// Ending a move on a mark gives another roll (never when bearing off).
    pub extra_roll: bool,
    /// A piece on a mark cannot be captured.
    pub safe: bool,
}

/// The description of a race rule set, as written in a rule file.
///
/// `dark_route` may be left out: it is then light's route mirrored across the
/// middle row (rows 0 and 2 swapped), as on every historical board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// The rule set id used in positions and on the command line.
    pub name: String,
    /// One line for people.
    #[serde(default)]
    pub description: String,
    /// Pieces per side.
    pub pieces: u8,
    /// Every cell of the board as drawn (route cells and any others).
    pub board: Vec<Cell>,
    /// Light's route: square 1 first.
    pub light_route: Vec<Cell>,
    /// Dark's route: square 1 first (defaults to light's mirrored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dark_route: Option<Vec<Cell>>,
    /// Marked cells and their flags.
    pub marks: Marks,
    /// The probability of each roll 0, 1, 2, … (must sum to 1).
    pub dice: Vec<f64>,
    /// A move that captures gives another roll (RoyalUr's Blitz), as
    /// ending on a mark does where marks give one. False when left out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub capture_extra_roll: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// What is wrong with a rule set description.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RuleError {
    /// The name cannot be used as an id.
    #[error(
        "rule set name {0:?} is not usable: use 1 to 40 lowercase letters, digits, '-' or '_', starting with a letter"
    )]
    BadName(String),
    /// The name belongs to another game.
    #[error("rule set name {0:?} is reserved for another game")]
    ReservedName(String),
    /// Piece count out of range.
    #[error("pieces is {0}; it must be between 1 and {MAX_PIECES}")]
    BadPieceCount(u8),
    /// A piece can reach a square it can never leave with the dice (a
    /// piece leaves the board only with the exact roll), so a game can
    /// last forever.
    #[error(
        "a piece on square {square} can never be borne off: from there the dice's rolls that move ({rolls}) never add up to the exact {off} it takes; no game would have to end"
    )]
    CannotFinish {
        /// The first such square a piece can reach (0: waiting to enter).
        square: usize,
        /// The rolls that move a piece.
        rolls: String,
        /// The step that bears a piece off (route length + 1).
        off: usize,
    },
    /// No board cells.
    #[error("the board has no cells")]
    EmptyBoard,
    /// A cell listed twice on the board.
    #[error("cell {0} is listed twice on the board")]
    DuplicateBoardCell(Cell),
    /// A route with no squares, or too many.
    #[error("{player}'s route has {len} squares; it must have between 1 and {MAX_ROUTE_LEN}")]
    BadRouteLength {
        /// Whose route.
        player: Player,
        /// Its length.
        len: usize,
    },
    /// The two routes differ in length.
    #[error("light's route has {light} squares but dark's has {dark}; they must be equally long")]
    RouteLengthsDiffer {
        /// Light's length.
        light: usize,
        /// Dark's length.
        dark: usize,
    },
    /// A route cell that is not on the board.
    #[error(
        "{player}'s route leaves the board: square {square} is cell {cell}, which the board does not have"
    )]
    RouteOffBoard {
        /// Whose route.
        player: Player,
        /// Square number (1-based).
        square: usize,
        /// The cell.
        cell: Cell,
    },
    /// A route that visits a cell twice.
    #[error("{player}'s route visits cell {cell} twice (squares {first} and {second})")]
    RouteRevisits {
        /// Whose route.
        player: Player,
        /// The cell.
        cell: Cell,
        /// First visit.
        first: usize,
        /// Second visit.
        second: usize,
    },
    /// A mark on a cell no route uses.
    #[error("mark {0} is on no route")]
    MarkOffRoutes(Cell),
    /// A mark listed twice.
    #[error("mark {0} is listed twice")]
    DuplicateMark(Cell),
    /// The rule set treats the players differently.
    #[error("the rule set does not treat both players alike: {0}")]
    Asymmetric(String),
    /// The dice are invalid.
    #[error("dice: {0}")]
    Dice(#[from] DiceError),
    /// The mirrored default for dark's route needs rows 0..=2 only.
    #[error(
        "dark_route is missing and light's route cannot be mirrored: cell {0} is not in rows 0 to 2"
    )]
    CannotMirror(Cell),
}

/// Why a rule file could not be read.
#[derive(Debug, Error)]
pub enum RuleFileError {
    /// The file could not be read.
    #[error("cannot read rule file {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or JSON of the right shape.
    #[error("rule file {path} is malformed: {message}")]
    Syntax {
        /// The path.
        path: String,
        /// What the parser said.
        message: String,
    },
    /// The description is not a valid rule set.
    #[error("rule file {path}: {source}")]
    Invalid {
        /// The path.
        path: String,
        /// What is wrong.
        source: RuleError,
    },
}

/// The largest rule file read (a rule file is a few KB).
pub const MAX_RULE_FILE_BYTES: u64 = 1 << 20;

/// How a rule file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleFileFormat {
    /// TOML (a `.toml` file).
    Toml,
    /// JSON (any other file).
    Json,
}

impl RuleFileFormat {
    /// The format a file's name says: TOML for `.toml`, else JSON.
    pub fn of_path(path: &Path) -> RuleFileFormat {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
        {
            RuleFileFormat::Toml
        } else {
            RuleFileFormat::Json
        }
    }
}

/// Per-player lookup tables, all in that player's own square numbering.
#[derive(Clone, Debug)]
pub(crate) struct Tables {
    /// `opp_square[s]`: the opponent's square number on the cell of my square
    /// `s`, or 0 when that cell is private to me.
    pub opp_square: [u8; 32],
    /// Squares whose cell is marked.
    pub marks: u32,
    /// Squares whose cell the opponent's route also uses.
    pub shared: u32,
    /// The opponent's occupancy translated into my numbering, a byte at a time.
    pub translate: [[u32; 256]; 4],
}

impl Tables {
    /// The opponent's pieces (a bitset in the opponent's numbering) as a
    /// bitset of my squares (only shared cells can carry them).
    #[inline]
    pub fn opponent_in_my_numbering(&self, opponent_squares: u32) -> u32 {
        let [b0, b1, b2, b3] = opponent_squares.to_le_bytes();
        self.translate[0][b0 as usize]
            | self.translate[1][b1 as usize]
            | self.translate[2][b2 as usize]
            | self.translate[3][b3 as usize]
    }
}

/// A validated race rule set with its precomputed tables.
#[derive(Clone, Debug)]
pub struct RuleSet {
    spec: RuleSpec,
    routes: ByPlayer<Vec<Cell>>,
    dice: Dice,
    pub(crate) tables: ByPlayer<Tables>,
    /// Bits 1..=L+1: squares a piece may land on, "off" included.
    pub(crate) landing_mask: u32,
    /// The rules digest, computed once when first asked (agents check
    /// their model files against it on every build).
    pub(crate) digest: std::sync::OnceLock<String>,
}

impl PartialEq for RuleSet {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= 40
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-' | '_'))
}

fn check_route(player: Player, route: &[Cell], board: &[Cell]) -> Result<(), RuleError> {
    if route.is_empty() || route.len() > MAX_ROUTE_LEN {
        return Err(RuleError::BadRouteLength {
            player,
            len: route.len(),
        });
    }
    let mut seen: HashMap<Cell, usize> = HashMap::new();
    for (i, &cell) in route.iter().enumerate() {
        let square = i + 1;
        if !board.contains(&cell) {
            return Err(RuleError::RouteOffBoard {
                player,
                square,
                cell,
            });
        }
        if let Some(&first) = seen.get(&cell) {
            return Err(RuleError::RouteRevisits {
                player,
                cell,
                first,
                second: square,
            });
        }
        seen.insert(cell, square);
    }
    Ok(())
}

fn mirror(route: &[Cell]) -> Result<Vec<Cell>, RuleError> {
    route
        .iter()
        .map(|&cell| match cell.row {
            0..=2 => Ok(Cell::new(2 - cell.row, cell.col)),
            _ => Err(RuleError::CannotMirror(cell)),
        })
        .collect()
}

/// Refuses dice with which a piece can reach a square (from waiting, by
/// the rolls that move it) from which no sequence of rolls ends exactly
/// on the step off the board: a piece there could never leave, and a game
/// where both sides are stuck so would never end.
fn check_finishable(dice: &Dice, len: usize) -> Result<(), RuleError> {
    let off = len + 1;
    let rolls: Vec<usize> = dice
        .probabilities()
        .iter()
        .enumerate()
        .filter(|&(roll, &p)| roll > 0 && p > 0.0)
        .map(|(roll, _)| roll)
        .collect();
    // finishes[s]: off is reachable from s; from the top down.
    let mut finishes = vec![false; off + 1];
    finishes[off] = true;
    for s in (0..off).rev() {
        finishes[s] = rolls.iter().any(|&r| s + r <= off && finishes[s + r]);
    }
    // reached[s]: a piece entering can get to s.
    let mut reached = vec![false; off + 1];
    reached[0] = true;
    for s in 0..off {
        if reached[s] {
            for &r in &rolls {
                if s + r <= off {
                    reached[s + r] = true;
                }
            }
        }
    }
    match (0..off).find(|&s| reached[s] && !finishes[s]) {
        None => Ok(()),
        Some(square) => Err(RuleError::CannotFinish {
            square,
            rolls: if rolls.is_empty() {
                "none".to_string()
            } else {
                rolls
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            off,
        }),
    }
}

impl RuleSet {
    /// Validates a description and builds its tables.
    pub fn new(mut spec: RuleSpec) -> Result<RuleSet, RuleError> {
        if !valid_name(&spec.name) {
            return Err(RuleError::BadName(spec.name));
        }
        if spec.name == "senet" {
            return Err(RuleError::ReservedName(spec.name));
        }
        if spec.pieces == 0 || spec.pieces > MAX_PIECES {
            return Err(RuleError::BadPieceCount(spec.pieces));
        }
        if spec.board.is_empty() {
            return Err(RuleError::EmptyBoard);
        }
        for (i, cell) in spec.board.iter().enumerate() {
            if spec.board[..i].contains(cell) {
                return Err(RuleError::DuplicateBoardCell(*cell));
            }
        }
        let dark_route = match &spec.dark_route {
            Some(route) => route.clone(),
            None => mirror(&spec.light_route)?,
        };
        check_route(Player::Light, &spec.light_route, &spec.board)?;
        check_route(Player::Dark, &dark_route, &spec.board)?;
        if spec.light_route.len() != dark_route.len() {
            return Err(RuleError::RouteLengthsDiffer {
                light: spec.light_route.len(),
                dark: dark_route.len(),
            });
        }
        for (i, mark) in spec.marks.cells.iter().enumerate() {
            if spec.marks.cells[..i].contains(mark) {
                return Err(RuleError::DuplicateMark(*mark));
            }
            if !spec.light_route.contains(mark) && !dark_route.contains(mark) {
                return Err(RuleError::MarkOffRoutes(*mark));
            }
        }
        let dice = Dice::new(spec.dice.clone())?;
        check_finishable(&dice, spec.light_route.len())?;
        let routes = ByPlayer {
            light: spec.light_route.clone(),
            dark: dark_route.clone(),
        };
        check_symmetry(&routes, &spec.marks.cells)?;
        spec.dark_route = Some(dark_route);
        let tables =
            ByPlayer::from_fn(|p| build_tables(&routes[p], &routes[!p], &spec.marks.cells));
        let len = routes.light.len();
        let landing_mask = ((1u64 << (len + 2)) - 2) as u32;
        Ok(RuleSet {
            spec,
            routes,
            dice,
            tables,
            landing_mask,
            digest: std::sync::OnceLock::new(),
        })
    }

    /// Reads a rule set from a TOML file (`.toml`) or a JSON file (anything
    /// else): a regular file of at most [`MAX_RULE_FILE_BYTES`].
    pub fn from_file(path: &Path) -> Result<RuleSet, RuleFileError> {
        let shown = path.display().to_string();
        let bytes = crate::files::read_bounded(path, MAX_RULE_FILE_BYTES).map_err(|source| {
            RuleFileError::Io {
                path: shown.clone(),
                source,
            }
        })?;
        RuleSet::from_bytes(&bytes, &shown, RuleFileFormat::of_path(path))
    }

    /// Reads a rule set from a rule file's bytes (named `shown` in errors).
    pub fn from_bytes(
        bytes: &[u8],
        shown: &str,
        format: RuleFileFormat,
    ) -> Result<RuleSet, RuleFileError> {
        let syntax = |message: String| RuleFileError::Syntax {
            path: shown.to_string(),
            message,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| syntax(format!("not UTF-8: {e}")))?;
        let spec: RuleSpec = match format {
            RuleFileFormat::Toml => toml::from_str(text).map_err(|e| syntax(e.to_string()))?,
            RuleFileFormat::Json => {
                serde_json::from_str(text).map_err(|e| syntax(e.to_string()))?
            }
        };
        RuleSet::new(spec).map_err(|source| RuleFileError::Invalid {
            path: shown.to_string(),
            source,
        })
    }

    /// The description this rule set was built from (with `dark_route` filled in).
    pub fn spec(&self) -> &RuleSpec {
        &self.spec
    }

    /// The rule set id.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Pieces per side.
    #[inline]
    pub fn pieces(&self) -> u8 {
        self.spec.pieces
    }

    /// Route length L: squares are numbered 1..=L, and L+1 means borne off.
    #[inline]
    pub fn route_len(&self) -> u8 {
        self.routes.light.len() as u8
    }

    /// The step number that means "borne off": L+1.
    #[inline]
    pub fn off(&self) -> u8 {
        self.route_len() + 1
    }

    /// A player's route, square 1 first.
    pub fn route(&self, player: Player) -> &[Cell] {
        &self.routes[player]
    }

    /// The cell of a player's square (1..=L).
    pub fn cell(&self, player: Player, square: u8) -> Cell {
        self.routes[player][square as usize - 1]
    }

    /// The board cells.
    pub fn board(&self) -> &[Cell] {
        &self.spec.board
    }

    /// The dice.
    pub fn dice(&self) -> &Dice {
        &self.dice
    }

    /// Whether a cell is marked.
    pub fn is_mark(&self, cell: Cell) -> bool {
        self.spec.marks.cells.contains(&cell)
    }

    /// Whether a player's square is marked.
    #[inline]
    pub fn is_marked_square(&self, player: Player, square: u8) -> bool {
        self.tables[player].marks >> square & 1 != 0
    }

    /// Whether a player's square lies on a cell both routes use.
    #[inline]
    pub fn is_shared_square(&self, player: Player, square: u8) -> bool {
        self.tables[player].shared >> square & 1 != 0
    }

    /// The opponent's square number on the cell of `player`'s `square`, if shared.
    #[inline]
    pub fn opponent_square(&self, player: Player, square: u8) -> Option<u8> {
        match self.tables[player].opp_square[square as usize] {
            0 => None,
            s => Some(s),
        }
    }

    /// Whether ending a move on a mark gives another roll.
    pub fn marks_give_extra_roll(&self) -> bool {
        self.spec.marks.extra_roll
    }

    /// Whether a move that captures gives another roll.
    pub fn captures_give_extra_roll(&self) -> bool {
        self.spec.capture_extra_roll
    }

    /// Whether pieces on marks are safe from capture.
    pub fn marks_are_safe(&self) -> bool {
        self.spec.marks.safe
    }

    /// Number of squares private to `player` (on no cell of the opponent's route).
    pub fn private_squares(&self, player: Player) -> u32 {
        u32::from(self.route_len()) - self.tables[player].shared.count_ones()
    }

    /// Number of cells both routes use.
    pub fn shared_cells(&self) -> u32 {
        self.tables.light.shared.count_ones()
    }
}

fn build_tables(mine: &[Cell], theirs: &[Cell], marks: &[Cell]) -> Tables {
    let mut opp_square = [0u8; 32];
    let mut mark_bits = 0u32;
    let mut shared = 0u32;
    let mut translate = [[0u32; 256]; 4];
    for (i, cell) in mine.iter().enumerate() {
        let square = i + 1;
        if let Some(j) = theirs.iter().position(|c| c == cell) {
            opp_square[square] = (j + 1) as u8;
            shared |= 1 << square;
        }
        if marks.contains(cell) {
            mark_bits |= 1 << square;
        }
    }
    // Their square j+1 maps to my square opp_square^-1; fill the byte tables.
    let mut theirs_to_mine = [0u8; 32];
    for (mine_sq, &their_sq) in opp_square.iter().enumerate() {
        if their_sq != 0 {
            theirs_to_mine[their_sq as usize] = mine_sq as u8;
        }
    }
    for (byte, table) in translate.iter_mut().enumerate() {
        for (value, entry) in table.iter_mut().enumerate() {
            for bit in 0..8 {
                if value >> bit & 1 != 0 {
                    let their_sq = byte * 8 + bit;
                    let my_sq = theirs_to_mine[their_sq];
                    if my_sq != 0 {
                        *entry |= 1 << my_sq;
                    }
                }
            }
        }
    }
    Tables {
        opp_square,
        marks: mark_bits,
        shared,
        translate,
    }
}

/// Checks that exchanging the colours maps the rules onto themselves: square
/// i of light meets square j of dark exactly when square i of dark meets
/// square j of light, and a square is marked for one player exactly when the
/// same-numbered square is marked for the other. Values "for the side to
/// move" and the colour flip rely on this.
fn check_symmetry(routes: &ByPlayer<Vec<Cell>>, marks: &[Cell]) -> Result<(), RuleError> {
    let len = routes.light.len();
    for i in 0..len {
        let light_marked = marks.contains(&routes.light[i]);
        let dark_marked = marks.contains(&routes.dark[i]);
        if light_marked != dark_marked {
            return Err(RuleError::Asymmetric(format!(
                "square {} is marked for {} but not for {}",
                i + 1,
                if light_marked { "light" } else { "dark" },
                if light_marked { "dark" } else { "light" },
            )));
        }
        for j in 0..len {
            let light_meets = routes.light[i] == routes.dark[j];
            let dark_meets = routes.dark[i] == routes.light[j];
            if light_meets != dark_meets {
                return Err(RuleError::Asymmetric(format!(
                    "light's square {} and dark's square {} share a cell, but dark's square {} and light's square {} do not (or the reverse)",
                    i + 1,
                    j + 1,
                    i + 1,
                    j + 1
                )));
            }
        }
    }
    Ok(())
}
