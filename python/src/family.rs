//! What the bindings need of a game family beyond the engine's traits: a
//! position of either family as one type, the fixed action space, and the
//! observation (the networks' encoding plus the roll).

use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::encoding::Encode;
use sawah_engine::race::{self, RuleSet};
use sawah_engine::senet::{self, Senet};
use sawah_engine::{Codec, Game, Player};

/// A position of either family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyPosition {
    /// A race rule set's position.
    Race(race::Position),
    /// A Senet position.
    Senet(senet::Position),
}

/// A game family as the bindings use it.
///
/// **Actions.** Every rule set has a fixed action space: an action names
/// the square a piece moves from. In the race family that is the square on
/// the piece's route, 0 entering a waiting piece (L + 1 actions for a route
/// of L squares); in Senet the house, 1 to 30, less one (30 actions). With
/// a given roll at most one legal move leaves a given square, so an action
/// and a roll name at most one move.
///
/// **Observations.** The networks' input encoding of the position, seen
/// from the side to move (`race-onehot-v1`, `senet-onehot-v1`, see
/// `sawah_agents::neural::encoding`), followed by the roll, one-hot over
/// 0 to the highest roll: every entry is 0 or 1.
pub trait Family:
    Codec
    + Encode
    + HasHeuristic
    + Game<Position: Send + Sync, Move: Send + Sync>
    + Send
    + Sync
    + 'static
{
    /// The position as either family's.
    fn wrap(position: Self::Position) -> AnyPosition;
    /// The position, if it is this family's.
    fn unwrap(position: &AnyPosition) -> Option<Self::Position>;
    /// How many actions there are.
    fn action_size(&self) -> usize;
    /// A move's action.
    fn action_of(&self, mv: Self::Move) -> usize;
    /// The same position with `player` to move.
    fn with_turn(position: &Self::Position, player: Player) -> Self::Position;
    /// A move's start and end squares (the end beyond the board when the
    /// piece is borne off).
    fn squares(mv: Self::Move) -> (u8, u8);
}

impl Family for RuleSet {
    fn wrap(position: race::Position) -> AnyPosition {
        AnyPosition::Race(position)
    }
    fn unwrap(position: &AnyPosition) -> Option<race::Position> {
        match position {
            AnyPosition::Race(position) => Some(*position),
            AnyPosition::Senet(_) => None,
        }
    }
    fn action_size(&self) -> usize {
        usize::from(self.route_len()) + 1
    }
    fn action_of(&self, mv: race::Move) -> usize {
        usize::from(mv.from)
    }
    fn with_turn(position: &race::Position, player: Player) -> race::Position {
        position.with_turn(player)
    }
    fn squares(mv: race::Move) -> (u8, u8) {
        (mv.from, mv.to)
    }
}

impl Family for Senet {
    fn wrap(position: senet::Position) -> AnyPosition {
        AnyPosition::Senet(position)
    }
    fn unwrap(position: &AnyPosition) -> Option<senet::Position> {
        match position {
            AnyPosition::Senet(position) => Some(*position),
            AnyPosition::Race(_) => None,
        }
    }
    fn action_size(&self) -> usize {
        usize::from(senet::HOUSES)
    }
    fn action_of(&self, mv: senet::Move) -> usize {
        usize::from(mv.from) - 1
    }
    fn with_turn(position: &senet::Position, player: Player) -> senet::Position {
        position.with_turn(player)
    }
    fn squares(mv: senet::Move) -> (u8, u8) {
        (mv.from, mv.to)
    }
}

/// The observation's length: the encoding, then the roll one-hot.
pub fn observation_size<G: Family>(game: &G) -> usize {
    game.input_size() + usize::from(game.dice().max_roll()) + 1
}

/// Writes the observation of `position` seen from `view` (the side to move
/// unless given) with `roll` (none: the roll part stays 0) into `out`,
/// which must be [`observation_size`] long. `active` is scratch space.
pub fn observe<G: Family>(
    game: &G,
    position: &G::Position,
    view: Option<Player>,
    roll: Option<u8>,
    active: &mut Vec<u16>,
    out: &mut [f32],
) {
    out.fill(0.0);
    active.clear();
    match view {
        Some(player) if player != game.turn(position) => {
            game.encode(&G::with_turn(position, player), active)
        }
        _ => game.encode(position, active),
    }
    for &i in active.iter() {
        out[usize::from(i)] = 1.0;
    }
    if let Some(roll) = roll {
        out[game.input_size() + usize::from(roll)] = 1.0;
    }
}

/// The legal move of `roll` that `action` names, if any.
pub fn move_of<G: Family>(
    game: &G,
    position: &G::Position,
    roll: u8,
    action: usize,
) -> Option<G::Move> {
    (game.legal_moves(position, roll).iter())
        .find(|&&mv| game.action_of(mv) == action)
        .copied()
}
