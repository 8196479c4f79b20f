//! What a front end needs to draw and play a rule set, as typed records
//! (the protocol's `rules` answer, `sawah rules R --json`), and the rule
//! set's digest.
//!
//! The records serialise their fields in declaration order whatever
//! serde_json's features (a map's order would follow `preserve_order`), so
//! the digest, FNV-1a 64 of the compact JSON text, is a canonical encoding:
//! the same value from every build, and the same as the digests already
//! stored in results files, model files and tables (a test pins them).

use crate::dice::roll_odds;
use crate::json::PositionJson;
use crate::player::Player;
use crate::race::{Marks, RuleSet, RuleSpec};
use crate::senet::{self, Senet};
use serde::{Deserialize, Serialize};

pub use crate::dice::RollOdds;
pub use crate::digest::{canonical_text, digest_of};

/// One square of a race route.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RouteSquare {
    /// The square, in the player's own numbering.
    pub square: u8,
    /// Its board cell, `[row, column]`.
    pub cell: [u8; 2],
    /// Whether it is marked.
    pub mark: bool,
    /// Whether both players pass it.
    pub shared: bool,
    /// The opponent's number for the same cell, on shared squares.
    pub opponent_square: Option<u8>,
}

/// A race board: its extent and cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RaceBoard {
    /// Rows.
    pub rows: u8,
    /// Columns.
    pub columns: u8,
    /// Every cell, `[row, column]`.
    pub cells: Vec<[u8; 2]>,
}

/// Both players' routes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Routes {
    /// Light's, square 1 first.
    pub light: Vec<RouteSquare>,
    /// Dark's, square 1 first.
    pub dark: Vec<RouteSquare>,
}

/// A race rule set for front ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RaceExport {
    /// The rule set id.
    pub name: String,
    /// Always `race`.
    pub family: String,
    /// One line for people.
    pub description: String,
    /// Pieces per side.
    pub pieces: u8,
    /// Squares on a route.
    pub route_length: u8,
    /// The square number that means borne off.
    pub off: u8,
    /// Who moves first.
    pub first_player: Player,
    /// The board.
    pub board: RaceBoard,
    /// The marks and what they do.
    pub marks: Marks,
    /// Both routes, square by square.
    pub routes: Routes,
    /// The dice.
    pub dice: Vec<RollOdds>,
    /// The full description (what a rule file holds).
    pub spec: RuleSpec,
}

/// One house of the Senet board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SenetHouse {
    /// The house, 1 to 30.
    pub house: u8,
    /// Its board cell, `[row, column]`.
    pub cell: [u8; 2],
    /// The house's name where it is special.
    pub special: Option<String>,
    /// Whether a piece there cannot be attacked.
    pub safe: bool,
}

/// The Senet board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SenetBoard {
    /// Rows.
    pub rows: u8,
    /// Columns.
    pub columns: u8,
    /// Every house.
    pub houses: Vec<SenetHouse>,
}

/// Senet for front ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SenetExport {
    /// Always `senet`.
    pub name: String,
    /// Always `senet`.
    pub family: String,
    /// One line for people.
    pub description: String,
    /// Pieces per side.
    pub pieces: u8,
    /// Houses on the board.
    pub houses: u8,
    /// The house number that means borne off.
    pub off: u8,
    /// Who moves first.
    pub first_player: Player,
    /// The starting position.
    pub start: PositionJson,
    /// The board.
    pub board: SenetBoard,
    /// The throws.
    pub dice: Vec<RollOdds>,
}

/// A rule set of either family as front ends draw and play it (the
/// protocol's `rules` answer): the family's export record, told apart by
/// its fields (a race rule set's have a route, Senet's houses).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RulesExport {
    /// The race family.
    Race(Box<RaceExport>),
    /// Senet.
    Senet(Box<SenetExport>),
}

impl RuleSet {
    /// Everything a front end needs to draw and play this rule set: the
    /// board cells, both routes square by square (cell, mark, whether the
    /// cell is shared and the opponent's number for it), the marks and their
    /// flags, the dice and the piece count.
    pub fn export(&self) -> RaceExport {
        let route = |player: Player| {
            (1..=self.route_len())
                .map(|square| {
                    let cell = self.cell(player, square);
                    RouteSquare {
                        square,
                        cell: [cell.row, cell.col],
                        mark: self.is_marked_square(player, square),
                        shared: self.is_shared_square(player, square),
                        opponent_square: self.opponent_square(player, square),
                    }
                })
                .collect()
        };
        let extent = |of: fn(&crate::race::Cell) -> u8| {
            self.board().iter().map(of).max().map_or(0, |m| m + 1)
        };
        RaceExport {
            name: self.name().to_string(),
            family: "race".to_string(),
            description: self.spec().description.clone(),
            pieces: self.pieces(),
            route_length: self.route_len(),
            off: self.off(),
            first_player: Player::Light,
            board: RaceBoard {
                rows: extent(|c| c.row),
                columns: extent(|c| c.col),
                cells: self.board().iter().map(|c| [c.row, c.col]).collect(),
            },
            marks: self.spec().marks.clone(),
            routes: Routes {
                light: route(Player::Light),
                dark: route(Player::Dark),
            },
            dice: roll_odds(crate::game::Game::dice(self)),
            spec: self.spec().clone(),
        }
    }
}

impl Senet {
    /// Everything a front end needs to draw and play Senet: the houses with
    /// their cells and special ones, the start, the throws.
    pub fn export(&self) -> SenetExport {
        let houses = (1..=senet::HOUSES)
            .map(|house| {
                let (row, col) = senet::house_cell(house);
                SenetHouse {
                    house,
                    cell: [row, col],
                    special: senet::house_name(house).map(String::from),
                    safe: senet::SAFE >> house & 1 != 0,
                }
            })
            .collect();
        SenetExport {
            name: senet::NAME.to_string(),
            family: "senet".to_string(),
            description:
                "Senet after Timothy Kendall, as played on Sawah: 30 houses, five pieces each"
                    .to_string(),
            pieces: senet::PIECES,
            houses: senet::HOUSES,
            off: senet::OFF,
            first_player: Player::Light,
            start: crate::json::Codec::position_to_json(self, &crate::game::Game::start(self)),
            board: SenetBoard {
                rows: 3,
                columns: 10,
                houses,
            },
            dice: roll_odds(crate::game::Game::dice(self)),
        }
    }
}

impl RuleSet {
    /// [`RuleSet::export`] as the record of either family.
    pub fn rules_export(&self) -> RulesExport {
        RulesExport::Race(Box::new(self.export()))
    }
}

impl Senet {
    /// [`Senet::export`] as the record of either family.
    pub fn rules_export(&self) -> RulesExport {
        RulesExport::Senet(Box::new(self.export()))
    }
}
