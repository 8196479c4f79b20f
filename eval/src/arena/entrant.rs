//! [`Entrant`]: whoever takes a seat in a match, a tournament or SPRT: one
//! of our agents by its spec, or an outside bot ([`crate::arena::outside`]).

use crate::arena::outside::{OutsideAgent, OutsideBot};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::identity::{AgentFile, FileError};
use sawah_agents::{Agent, AgentSpec, SpecError};
use std::fmt;
use std::sync::Arc;

/// A player the harness seats.
#[derive(Clone, Debug)]
pub enum Entrant {
    /// One of our agents.
    Builtin(AgentSpec),
    /// A bot written by anyone, refereed over the bot protocol.
    Outside(Arc<OutsideBot>),
}

impl From<AgentSpec> for Entrant {
    fn from(spec: AgentSpec) -> Entrant {
        Entrant::Builtin(spec)
    }
}

impl Entrant {
    /// The agent for one game. A built-in agent's seed is its spec's XOR
    /// `seed_mix` (the pair's dice seed); an outside bot is told the game
    /// it plays (`game_id`) and the seed a built-in agent would have had.
    pub fn build<G: HasHeuristic + 'static>(
        &self,
        game: &G,
        seed_mix: u64,
        game_id: &str,
    ) -> Result<Box<dyn Agent<G> + Send>, SpecError> {
        match self {
            Entrant::Builtin(spec) => AgentSpec {
                seed: spec.seed ^ seed_mix,
                ..spec.clone()
            }
            .build(game),
            Entrant::Outside(bot) => Ok(Box::new(OutsideAgent::new(
                Arc::clone(bot),
                game_id.to_string(),
                seed_mix,
            ))),
        }
    }

    /// The spec, for one of our agents.
    pub fn spec(&self) -> Option<&AgentSpec> {
        match self {
            Entrant::Builtin(spec) => Some(spec),
            Entrant::Outside(_) => None,
        }
    }

    /// The identity results headers record: a spec with files by their
    /// names, or an outside bot's definition as written, with what it said
    /// in answer to `hello`.
    pub fn portable(&self) -> String {
        match self {
            Entrant::Builtin(spec) => spec.portable().to_string(),
            Entrant::Outside(bot) => bot.def().portable(),
        }
    }

    /// The files the entrant reads, with their checksums: a spec's model,
    /// weights and table; an outside bot's program and script files (the
    /// command's arguments that name files in its folder).
    pub fn files(&self) -> Result<Vec<AgentFile>, FileError> {
        match self {
            Entrant::Builtin(spec) => spec.files(),
            Entrant::Outside(bot) => bot.def().files(),
        }
    }
}

impl fmt::Display for Entrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entrant::Builtin(spec) => write!(f, "{spec}"),
            Entrant::Outside(bot) => f.write_str(bot.name()),
        }
    }
}
