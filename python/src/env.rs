//! The environment core: one game between a learner and an opponent (or
//! two learners), stepped by actions, with dice from a seed. Written once
//! for both families; [`DynEnv`] hides which.
//!
//! A game follows the same steps as the tournaments' (`sawah_eval`'s game
//! loop): while nobody has won, roll; with no legal move the turn passes;
//! otherwise the side to move chooses. So with the same dice seed, and the
//! opponent's spec seeded as a tournament pair seeds it (its seed mixed
//! with the dice seed), a learner that plays an agent's moves plays that
//! agent's games exactly.

use crate::family::{AnyPosition, Family, observation_size, observe};
use sawah_agents::{Agent, AgentSpec, assets::Assets};
use sawah_engine::{DiceSource, Player};
use std::sync::Arc;

/// Games stopped after this many rolls count as truncated: the engine's
/// one limit, the tournaments' too.
pub use sawah_engine::MAX_ROLLS;

/// Where an episode stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A learner is to move with [`DynEnv::roll`].
    Playing,
    /// Someone won; `illegal` when the loser lost by an illegal action.
    Over { winner: Player, illegal: bool },
    /// Stopped at [`MAX_ROLLS`].
    Truncated,
}

/// What a learner did wrong.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// The episode has ended.
    #[error("the game is over; call reset() to start another")]
    Over,
    /// No legal move leaves the square the action names.
    #[error("action {action} is not legal with roll {roll}; legal actions: {legal:?}")]
    Illegal {
        action: usize,
        roll: u8,
        legal: Vec<usize>,
    },
}

/// What an illegal action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnIllegal {
    /// The mover loses the game (PettingZoo's classic games do the same).
    Lose,
    /// The step is refused with an error naming the legal actions.
    Raise,
}

/// An environment of either family.
pub trait DynEnv: Send {
    /// Starts a game with the dice of `dice_seed`, the learner on `seat`
    /// (none: both sides are learners), and plays until a learner is to move.
    fn reset(&mut self, dice_seed: u64, seat: Option<Player>);
    /// Plays the learner's `action`, then the opponent until a learner is
    /// to move again or the game ends.
    fn step(&mut self, action: usize) -> Result<(), StepError>;
    /// Where the episode stands.
    fn status(&self) -> Status;
    /// The side to move.
    fn mover(&self) -> Player;
    /// The learner's seat (none: both).
    fn seat(&self) -> Option<Player>;
    /// The roll the side to move has.
    fn roll(&self) -> u8;
    /// Rolls so far.
    fn rolls(&self) -> u64;
    /// The position.
    fn position(&self) -> AnyPosition;
    /// The observation seen from `view` (the side to move when none; only
    /// the side to move sees its roll) into `out`.
    fn observe(&mut self, view: Option<Player>, out: &mut [f32]);
    /// Which actions are legal for the side to move (all false once over).
    fn mask(&self, out: &mut [bool]);
    /// The legal actions, ascending.
    fn legal_actions(&self) -> Vec<usize>;
    /// A uniformly random legal action from `source` (none once over).
    fn random_action(&self, source: &mut DiceSource) -> Option<usize>;
    /// The observation's and the action space's sizes.
    fn sizes(&self) -> (usize, usize);
}

/// The environment of one family.
pub struct Env<G: Family> {
    game: Arc<G>,
    /// The opponent's spec, when one side is not a learner.
    opponent: Option<AgentSpec>,
    assets: Arc<dyn Assets>,
    agent: Option<Box<dyn Agent<G> + Send>>,
    seat: Option<Player>,
    on_illegal: OnIllegal,
    dice: DiceSource,
    position: G::Position,
    roll: u8,
    legal: Vec<G::Move>,
    rolls: u64,
    status: Status,
    active: Vec<u16>,
}

impl<G: Family> Env<G> {
    /// An environment against `opponent` (none: two learners), whose files
    /// come from `assets`. The opponent is built once here, so that a bad
    /// spec fails at once.
    pub fn new(
        game: Arc<G>,
        opponent: Option<AgentSpec>,
        assets: Arc<dyn Assets>,
        on_illegal: OnIllegal,
    ) -> Result<Env<G>, sawah_agents::SpecError> {
        let agent = match &opponent {
            Some(spec) => Some(spec.build_with(&*game, &*assets)?),
            None => None,
        };
        let position = game.start();
        Ok(Env {
            game,
            opponent,
            assets,
            agent,
            seat: Some(Player::Light),
            on_illegal,
            dice: DiceSource::from_seed(0),
            position,
            roll: 0,
            legal: Vec::new(),
            rolls: 0,
            status: Status::Truncated,
            active: Vec::with_capacity(64),
        })
    }

    fn is_learner(&self, player: Player) -> bool {
        self.seat.is_none_or(|seat| seat == player)
    }

    /// Rolls and plays the opponent until a learner is to move or the game
    /// ends.
    fn advance(&mut self) {
        let game = &*self.game;
        loop {
            if let Some(winner) = game.winner(&self.position) {
                self.status = Status::Over {
                    winner,
                    illegal: false,
                };
                return;
            }
            if self.rolls >= MAX_ROLLS {
                self.status = Status::Truncated;
                return;
            }
            let roll = self.dice.roll(game.dice());
            self.rolls += 1;
            let legal = game.legal_moves(&self.position, roll);
            if legal.is_empty() {
                self.position = game.pass(&self.position);
                continue;
            }
            let mover = game.turn(&self.position);
            if self.is_learner(mover) {
                self.roll = roll;
                self.legal.clear();
                self.legal.extend(legal.iter().copied());
                self.status = Status::Playing;
                return;
            }
            let Some(agent) = self.agent.as_mut() else {
                unreachable!("a side that is not a learner has an opponent");
            };
            let mv = agent.choose(game, &self.position, roll, &legal);
            self.position = game.apply(&self.position, mv).position;
        }
    }
}

impl<G: Family> DynEnv for Env<G> {
    fn reset(&mut self, dice_seed: u64, seat: Option<Player>) {
        self.seat = if self.opponent.is_some() {
            Some(seat.unwrap_or(Player::Light))
        } else {
            None
        };
        if let Some(spec) = &self.opponent {
            // Seeded as a tournament pair seeds it; the spec built once in
            // `new`, so this cannot fail.
            let seeded = AgentSpec {
                seed: spec.seed ^ dice_seed,
                ..spec.clone()
            };
            self.agent = seeded.build_with(&*self.game, &*self.assets).ok();
        }
        self.dice = DiceSource::from_seed(dice_seed);
        self.position = self.game.start();
        self.rolls = 0;
        self.advance();
    }

    fn step(&mut self, action: usize) -> Result<(), StepError> {
        if self.status != Status::Playing {
            return Err(StepError::Over);
        }
        let game = &*self.game;
        let Some(&mv) = self.legal.iter().find(|&&mv| game.action_of(mv) == action) else {
            if self.on_illegal == OnIllegal::Raise {
                return Err(StepError::Illegal {
                    action,
                    roll: self.roll,
                    legal: self.legal_actions(),
                });
            }
            self.status = Status::Over {
                winner: game.turn(&self.position).other(),
                illegal: true,
            };
            return Ok(());
        };
        self.position = game.apply(&self.position, mv).position;
        self.advance();
        Ok(())
    }

    fn status(&self) -> Status {
        self.status
    }

    fn mover(&self) -> Player {
        self.game.turn(&self.position)
    }

    fn seat(&self) -> Option<Player> {
        self.seat
    }

    fn roll(&self) -> u8 {
        self.roll
    }

    fn rolls(&self) -> u64 {
        self.rolls
    }

    fn position(&self) -> AnyPosition {
        G::wrap(self.position)
    }

    fn observe(&mut self, view: Option<Player>, out: &mut [f32]) {
        let mover = self.mover();
        let sees_roll = self.status == Status::Playing && view.is_none_or(|v| v == mover);
        let roll = sees_roll.then_some(self.roll);
        observe(
            &*self.game,
            &self.position,
            view,
            roll,
            &mut self.active,
            out,
        );
    }

    fn mask(&self, out: &mut [bool]) {
        out.fill(false);
        if self.status == Status::Playing {
            for &mv in &self.legal {
                out[self.game.action_of(mv)] = true;
            }
        }
    }

    fn legal_actions(&self) -> Vec<usize> {
        if self.status != Status::Playing {
            return Vec::new();
        }
        let mut actions: Vec<usize> = self
            .legal
            .iter()
            .map(|&mv| self.game.action_of(mv))
            .collect();
        actions.sort_unstable();
        actions
    }

    fn random_action(&self, source: &mut DiceSource) -> Option<usize> {
        if self.status != Status::Playing || self.legal.is_empty() {
            return None;
        }
        let mv = self.legal[source.below(self.legal.len())];
        Some(self.game.action_of(mv))
    }

    fn sizes(&self) -> (usize, usize) {
        (observation_size(&*self.game), self.game.action_size())
    }
}
