//! Outside bots: programs and services written by anyone, refereed by the
//! harness over the bot protocol (`docs/bots.md`).
//!
//! * [`defs`]: the `--bots FILE` definitions;
//! * [`link`]: the wire (a process's pipes, or HTTP), bounded in time and size;
//! * [`bot`]: a started bot: its pool of processes, identity and withdrawal;
//! * [`agent`]: a bot seated in one game, as an [`sawah_agents::Agent`];
//! * [`check`]: `sawah check-bot`, the compliance test.

pub mod agent;
pub mod bot;
pub mod check;
pub mod defs;
pub mod link;

pub use agent::OutsideAgent;
pub use bot::{Identity, OutsideBot, Referee};
pub use defs::{BotDef, BotDefs, DefsError, Transport};
