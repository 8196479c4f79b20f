//! What a move does, in the game's own terms: the tags a hint shows beside
//! each move (enters, captures, rolls again, safe, bears off, …) and the
//! chance that the opponent can hit one of the mover's pieces on their
//! next roll. Computed from the rules alone, for front ends and reviews.

use crate::game::Game;
use crate::race::{self, RuleSet};
use crate::senet::{self, BEAUTY, OFF, SAFE, Senet};
use serde::{Deserialize, Serialize};

/// One thing a move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tag {
    /// Race: a waiting piece enters the board.
    Enters,
    /// Race: an opponent piece is sent back off the board. Senet: an
    /// opponent piece is attacked (the two swap places).
    Captures,
    /// The mover rolls (throws) again.
    RollsAgain,
    /// The piece ends where it cannot be captured: a safe mark (race), or
    /// houses 26, 28, 29 and 30 (Senet).
    Safe,
    /// Senet: the piece ends next to one of its own, so neither can be attacked.
    Protected,
    /// Senet: the piece completes a wall, three or more in a row that the
    /// opponent cannot pass.
    FormsWall,
    /// Senet: the piece stops on the House of Beauty (26).
    Beauty,
    /// Senet: from 26 with a 1, the piece falls into the water and goes back
    /// to 15 (or the first free house below).
    Water,
    /// Senet: a backward move (no forward move was legal).
    Backward,
    /// A piece is borne off.
    BearsOff,
    /// The move wins the game.
    Wins,
}

impl Tag {
    /// The tag's name in the protocol (`rolls_again`).
    pub fn name(self) -> &'static str {
        match self {
            Tag::Enters => "enters",
            Tag::Captures => "captures",
            Tag::RollsAgain => "rolls_again",
            Tag::Safe => "safe",
            Tag::Protected => "protected",
            Tag::FormsWall => "forms_wall",
            Tag::Beauty => "beauty",
            Tag::Water => "water",
            Tag::Backward => "backward",
            Tag::BearsOff => "bears_off",
            Tag::Wins => "wins",
        }
    }
}

/// A move's tags and the risk it leaves.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MoveTags {
    /// What the move does, in a fixed order.
    pub tags: Vec<Tag>,
    /// The tags in words, in the game's own terms.
    pub words: Vec<&'static str>,
    /// The probability that the opponent's next roll allows a move that
    /// captures one of the mover's pieces (any piece, the moved one or one
    /// left behind). `None` when the mover rolls again or the game is over:
    /// the opponent does not roll next.
    pub hit_chance: Option<f64>,
}

/// Describes moves in the game's own terms.
pub trait Describe: Game {
    /// What `mv` does from `position` (the mover's tags, without the risk).
    fn tags(&self, position: &Self::Position, mv: Self::Move) -> Vec<Tag>;
    /// Whether `mv` captures (race) or attacks (Senet) an opponent piece.
    fn captures(&self, position: &Self::Position, mv: Self::Move) -> bool;
    /// A tag in words, for this game.
    fn words(&self, tag: Tag) -> &'static str;

    /// The probability that the side to move in `position` can capture a
    /// piece of the other side with its roll: the chance of the rolls for
    /// which one of its legal moves captures.
    fn capture_chance(&self, position: &Self::Position) -> f64 {
        self.dice()
            .outcomes()
            .filter(|&(roll, _)| {
                self.legal_moves(position, roll)
                    .iter()
                    .any(|&mv| self.captures(position, mv))
            })
            .map(|(_, p)| p)
            .sum()
    }

    /// `mv`'s tags, in words too, with the chance that the opponent can
    /// hit back on their next roll.
    fn describe(&self, position: &Self::Position, mv: Self::Move) -> MoveTags {
        let tags = self.tags(position, mv);
        let after = self.apply(position, mv);
        let hit_chance = (!after.extra_roll && self.winner(&after.position).is_none())
            .then(|| self.capture_chance(&after.position));
        MoveTags {
            words: tags.iter().map(|&t| self.words(t)).collect(),
            tags,
            hit_chance,
        }
    }
}

impl Describe for RuleSet {
    fn tags(&self, position: &race::Position, mv: race::Move) -> Vec<Tag> {
        let me = position.turn();
        let outcome = self.apply(position, mv);
        let mut tags = Vec::new();
        if mv.from == 0 {
            tags.push(Tag::Enters);
        }
        if outcome.captured {
            tags.push(Tag::Captures);
        }
        if outcome.extra_roll {
            tags.push(Tag::RollsAgain);
        }
        if mv.to != self.off() && self.marks_are_safe() && self.is_marked_square(me, mv.to) {
            tags.push(Tag::Safe);
        }
        if mv.to == self.off() {
            tags.push(Tag::BearsOff);
        }
        if self.winner(&outcome.position) == Some(me) {
            tags.push(Tag::Wins);
        }
        tags
    }

    fn captures(&self, position: &race::Position, mv: race::Move) -> bool {
        self.apply(position, mv).captured
    }

    fn words(&self, tag: Tag) -> &'static str {
        match tag {
            Tag::Enters => "enters a piece",
            Tag::Captures => "captures: the opponent's piece goes back to start",
            Tag::RollsAgain if self.captures_give_extra_roll() => "rolls again",
            Tag::RollsAgain => "lands on a rosette and rolls again",
            Tag::Safe => "safe on the rosette",
            Tag::BearsOff => "bears off",
            Tag::Wins => "wins the game",
            // Senet's tags never describe a race move.
            Tag::Protected | Tag::FormsWall | Tag::Beauty | Tag::Water | Tag::Backward => "",
        }
    }
}

impl Describe for Senet {
    fn tags(&self, position: &senet::Position, mv: senet::Move) -> Vec<Tag> {
        let me = position.turn();
        let (after, extra) = self.apply(position, mv);
        let mut tags = Vec::new();
        if mv.is_backward() {
            tags.push(Tag::Backward);
        }
        if self.captures(position, mv) {
            tags.push(Tag::Captures);
        }
        if extra {
            tags.push(Tag::RollsAgain);
        }
        if mv.is_water() {
            tags.push(Tag::Water);
        }
        if mv.to == BEAUTY {
            tags.push(Tag::Beauty);
        }
        if mv.to != OFF {
            let mine = after.side(me).square_bits();
            let bit = 1u32 << mv.to;
            if SAFE & bit != 0 {
                tags.push(Tag::Safe);
            }
            let neighbours = mine & ((bit << 1) | (bit >> 1));
            if neighbours != 0 && SAFE & bit == 0 {
                tags.push(Tag::Protected);
            }
            if in_wall(mine, mv.to) && !in_wall(position.side(me).square_bits(), mv.to) {
                tags.push(Tag::FormsWall);
            }
        } else {
            tags.push(Tag::BearsOff);
        }
        if self.winner(&after) == Some(me) {
            tags.push(Tag::Wins);
        }
        tags
    }

    fn captures(&self, position: &senet::Position, mv: senet::Move) -> bool {
        let theirs = position.side(!position.turn()).square_bits();
        mv.to != OFF && !mv.is_water() && theirs >> mv.to & 1 != 0
    }

    fn words(&self, tag: Tag) -> &'static str {
        match tag {
            Tag::Captures => "attacks: the pieces swap places",
            Tag::RollsAgain => "throws again",
            Tag::Safe => "safe: cannot be attacked there",
            Tag::Protected => "protected: next to its own piece",
            Tag::FormsWall => "forms a wall the opponent cannot pass",
            Tag::Beauty => "stops on the House of Beauty",
            Tag::Water => "falls into the water, back to the House of Rebirth",
            Tag::Backward => "moves backward (no forward move)",
            Tag::BearsOff => "bears off",
            Tag::Wins => "wins the game",
            // Race tags never describe a Senet move.
            Tag::Enters => "",
        }
    }
}

/// Whether house `house` is part of a run of three or more in `pieces`.
fn in_wall(pieces: u32, house: u8) -> bool {
    let runs = pieces & (pieces >> 1) & (pieces >> 2);
    let wall = runs | runs << 1 | runs << 2;
    wall >> house & 1 != 0
}
