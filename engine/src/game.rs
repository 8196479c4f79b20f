//! The interface every game family offers to agents, training and tools.

use crate::dice::Dice;
use crate::movelist::MoveList;
use crate::player::Player;
use std::fmt::Debug;
use std::hash::Hash;

/// The most rolls any game loop of the project plays before it stops a game
/// as unfinished: tournaments and matches (half a win each), training's
/// self-play, the variant report's measured games, the Python
/// environment (truncated) and the conformance tests. One value for all,
/// so no loop cuts a game another would finish. No game of random play on
/// any shipped rule set comes near it (docs/benchmarks-log.md).
pub const MAX_ROLLS: u64 = 100_000;

/// The result of playing one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step<P> {
    /// The position after the move, with the turn set to whoever moves next.
    pub position: P,
    /// The mover throws again.
    pub extra_roll: bool,
}

/// A two-player dice game: positions, rolls with exact weights, legal moves.
///
/// Agents, search, the solver and tournaments are written against this trait,
/// so a new family (Senet) plugs in without special cases outside the engine.
///
/// # Examples
///
/// A game of the Royal Game of Ur played to its end, each side taking its
/// first legal move, with rolls from the rule set's own dice:
///
/// ```
/// use sawah_engine::{DiceSource, Game, race};
///
/// let ur = race::preset("ur").expect("a named rule set");
/// let mut dice = DiceSource::from_seed(7);
/// let mut position = ur.start();
/// let mut rolls = 0;
/// while ur.winner(&position).is_none() && rolls < 100_000 {
///     let roll = dice.roll(ur.dice());
///     rolls += 1;
///     let moves = ur.legal_moves(&position, roll);
///     position = match moves.first() {
///         Some(&first) => ur.apply(&position, first).position,
///         None => ur.pass(&position), // no legal move: the turn passes
///     };
/// }
/// assert!(ur.winner(&position).is_some());
/// ```
pub trait Game {
    /// A position (small, copied freely).
    type Position: Copy + Eq + Hash + Debug;
    /// A move.
    type Move: Copy + Eq + Hash + Debug + Default;

    /// The rule set id (`sawah`, `senet`, …).
    fn name(&self) -> &str;
    /// The dice, with the exact probability of every roll.
    fn dice(&self) -> &Dice;
    /// The starting position.
    fn start(&self) -> Self::Position;
    /// The side to move.
    fn turn(&self, position: &Self::Position) -> Player;
    /// The winner, once the game is over.
    fn winner(&self, position: &Self::Position) -> Option<Player>;
    /// Legal moves for the side to move; empty means the turn passes.
    fn legal_moves(&self, position: &Self::Position, roll: u8) -> MoveList<Self::Move>;
    /// Plays a legal move.
    fn apply(&self, position: &Self::Position, mv: Self::Move) -> Step<Self::Position>;
    /// The position after the side to move passes.
    fn pass(&self, position: &Self::Position) -> Self::Position;
}

impl Game for crate::race::RuleSet {
    type Position = crate::race::Position;
    type Move = crate::race::Move;

    fn name(&self) -> &str {
        crate::race::RuleSet::name(self)
    }
    fn dice(&self) -> &Dice {
        crate::race::RuleSet::dice(self)
    }
    fn start(&self) -> Self::Position {
        crate::race::RuleSet::start(self)
    }
    fn turn(&self, position: &Self::Position) -> Player {
        position.turn()
    }
    fn winner(&self, position: &Self::Position) -> Option<Player> {
        crate::race::RuleSet::winner(self, position)
    }
    #[inline]
    fn legal_moves(&self, position: &Self::Position, roll: u8) -> MoveList<Self::Move> {
        crate::race::RuleSet::legal_moves(self, position, roll)
    }
    #[inline]
    fn apply(&self, position: &Self::Position, mv: Self::Move) -> Step<Self::Position> {
        let outcome = crate::race::RuleSet::apply(self, position, mv);
        Step {
            position: outcome.position,
            extra_roll: outcome.extra_roll,
        }
    }
    fn pass(&self, position: &Self::Position) -> Self::Position {
        crate::race::RuleSet::pass(self, position)
    }
}

impl Game for crate::senet::Senet {
    type Position = crate::senet::Position;
    type Move = crate::senet::Move;

    fn name(&self) -> &str {
        crate::senet::NAME
    }
    fn dice(&self) -> &Dice {
        crate::senet::Senet::dice(self)
    }
    fn start(&self) -> Self::Position {
        crate::senet::Senet::start(self)
    }
    fn turn(&self, position: &Self::Position) -> Player {
        position.turn()
    }
    fn winner(&self, position: &Self::Position) -> Option<Player> {
        crate::senet::Senet::winner(self, position)
    }
    #[inline]
    fn legal_moves(&self, position: &Self::Position, roll: u8) -> MoveList<Self::Move> {
        crate::senet::Senet::legal_moves(self, position, roll)
    }
    #[inline]
    fn apply(&self, position: &Self::Position, mv: Self::Move) -> Step<Self::Position> {
        let (position, extra_roll) = crate::senet::Senet::apply(self, position, mv);
        Step {
            position,
            extra_roll,
        }
    }
    fn pass(&self, position: &Self::Position) -> Self::Position {
        crate::senet::Senet::pass(self, position)
    }
}
