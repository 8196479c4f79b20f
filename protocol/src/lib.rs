//! The bot protocol: one JSON request in, one JSON response out.
//!
//! This crate is the one contract behind every front door: `sawah bot`
//! (JSON lines on stdin and stdout), the WebAssembly package a browser
//! loads, and the HTTP server all hand a request to [`Bot`] and give back
//! what it answers, so the same request gets the same answer through each
//! of them. The requests, the responses and the error kinds are documented
//! in `docs/protocol.md`.
//!
//! The bot itself touches no file, spawns no thread and needs no runtime:
//! models and solved tables reach a [`Bot`] as bytes (or loaded objects)
//! held in a [`sawah_agents::MemoryAssets`]. Only the `native` module,
//! for native front doors, opens files: it builds the store that reads
//! models and tables by path behind a bot ([`Bot::with_fallback`]).
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

mod analysis;
mod batch;
mod bot;
mod command;
mod error;
mod limits;
pub mod messages;
mod puzzles;
mod request;
mod respond;
mod wire;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

pub use analysis::{MAX_REFERENCE_DEPTH, REFERENCE_LEVEL, ReviewReference};
pub use batch::check_batch;
pub use bot::{Bot, listed_moves};
pub use command::Command;
pub use error::{ErrorKind, ProtocolError};
pub use limits::{DEFAULT_DAILY_COUNT, MAX_DAILY_COUNT, MAX_RATING, MAX_REVIEW_TURNS};
pub use messages::{Answer, Request, schema_document};
pub use wire::WireRequest;
