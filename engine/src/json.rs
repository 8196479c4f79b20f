//! Positions and moves as JSON (DESIGN.md §3.1).

use crate::ByPlayer;
use crate::player::Player;
use crate::race::{Move, Position, PositionError, RuleSet, Setup, SideSetup};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One side of a JSON position. `waiting` belongs to the race family only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideJson {
    /// Pieces waiting to enter (race family).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<u8>,
    /// Pieces borne off.
    pub scored: u8,
    /// Occupied squares in the player's own numbering, ascending.
    pub squares: Vec<u8>,
}

/// A position as JSON: `{"rules":…,"turn":…,"light":{…},"dark":{…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionJson {
    /// The rule set id.
    pub rules: String,
    /// The side to move.
    pub turn: Player,
    /// Light's pieces.
    pub light: SideJson,
    /// Dark's pieces.
    pub dark: SideJson,
}

impl PositionJson {
    /// A side by player.
    pub fn side(&self, player: Player) -> &SideJson {
        match player {
            Player::Light => &self.light,
            Player::Dark => &self.dark,
        }
    }
}

/// Why a JSON position is not a position of the rule set it was given to.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum JsonPositionError {
    /// The position names another rule set.
    #[error("the position is for rule set {found:?}, not {expected:?}")]
    RulesMismatch {
        /// The rule set in use.
        expected: String,
        /// The one the position names.
        found: String,
    },
    /// A race position without a waiting count.
    #[error("{0} has no \"waiting\" count; race positions need one")]
    MissingWaiting(Player),
    /// The pieces are not a valid position.
    #[error("{0}")]
    Invalid(#[from] PositionError),
}

impl RuleSet {
    /// The JSON form of a position (squares ascending).
    pub fn position_to_json(&self, position: &Position) -> PositionJson {
        let side = |player: Player| {
            let side = position.side(player);
            SideJson {
                waiting: Some(side.waiting()),
                scored: side.scored(),
                squares: side.squares().collect(),
            }
        };
        PositionJson {
            rules: self.name().to_string(),
            turn: position.turn(),
            light: side(Player::Light),
            dark: side(Player::Dark),
        }
    }

    /// Validates a JSON position for this rule set.
    pub fn position_from_json(&self, json: &PositionJson) -> Result<Position, JsonPositionError> {
        if json.rules != self.name() {
            return Err(JsonPositionError::RulesMismatch {
                expected: self.name().to_string(),
                found: json.rules.clone(),
            });
        }
        let mut sides = ByPlayer::<SideSetup>::default();
        for player in Player::BOTH {
            let given = json.side(player);
            sides[player] = SideSetup {
                waiting: given
                    .waiting
                    .ok_or(JsonPositionError::MissingWaiting(player))?,
                scored: given.scored,
                squares: given.squares.clone(),
            };
        }
        Ok(self.position(&Setup {
            turn: json.turn,
            sides,
        })?)
    }

    /// The JSON form of a move: `{"from":F,"to":T}`, `to` being `"off"` when bearing off.
    pub fn move_to_json(&self, mv: Move) -> serde_json::Value {
        let to = if mv.to == self.off() {
            serde_json::Value::from("off")
        } else {
            serde_json::Value::from(mv.to)
        };
        serde_json::json!({ "from": mv.from, "to": to })
    }
}

impl RuleSet {
    /// Everything a front end needs to draw and play this rule set, as JSON:
    /// the board cells, both routes square by square (cell, mark, whether the
    /// cell is shared and the opponent's number for it), the marks and their
    /// flags, the dice and the piece count.
    pub fn export_json(&self) -> serde_json::Value {
        let route = |player: Player| {
            (1..=self.route_len())
                .map(|square| {
                    let cell = self.cell(player, square);
                    serde_json::json!({
                        "square": square,
                        "cell": [cell.row, cell.col],
                        "mark": self.is_marked_square(player, square),
                        "shared": self.is_shared_square(player, square),
                        "opponent_square": self.opponent_square(player, square),
                    })
                })
                .collect::<Vec<_>>()
        };
        let rows = self
            .board()
            .iter()
            .map(|c| c.row)
            .max()
            .map_or(0, |r| r + 1);
        let columns = self
            .board()
            .iter()
            .map(|c| c.col)
            .max()
            .map_or(0, |c| c + 1);
        serde_json::json!({
            "name": self.name(),
            "family": "race",
            "description": self.spec().description,
            "pieces": self.pieces(),
            "route_length": self.route_len(),
            "off": self.off(),
            "first_player": Player::Light,
            "board": {
                "rows": rows,
                "columns": columns,
                "cells": self.board().iter().map(|c| [c.row, c.col]).collect::<Vec<_>>(),
            },
            "marks": self.spec().marks,
            "routes": { "light": route(Player::Light), "dark": route(Player::Dark) },
            "dice": self.dice().outcomes_json(),
            "spec": self.spec(),
        })
    }
}
