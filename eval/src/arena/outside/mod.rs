//! Outside bots: programs and services written by anyone, refereed by the
//! harness over the bot protocol (`docs/bots.md`).
//!
//! * [`defs`]: the `--bots FILE` definitions;
//! * [`link`]: the wire to a process (its pipes), bounded in time and size;
//! * [`http`]: the wire to a server (HTTP or HTTPS), bounded the same way;
//! * [`bot`]: a started bot: its pool of processes, identity and withdrawal;
//! * [`agent`]: a bot seated in one game, as an [`sawah_agents::Agent`];
//! * [`check`]: `sawah check-bot`, the compliance test.

pub mod agent;
pub mod bot;
pub mod check;
pub mod defs;
pub mod http;
pub mod link;

pub use agent::OutsideAgent;
pub use bot::{Identity, OutsideBot, Referee};
pub use defs::{BotDef, BotDefs, CaFile, DefsError, HttpBot, Redirects, Transport};
