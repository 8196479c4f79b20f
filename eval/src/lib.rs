//! Measuring agents: paired-dice matches and tournaments, Bradley–Terry Elo
//! tables with intervals, SPRT, and game analysis against solved tables.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod adjusted;
pub mod analysis;
pub mod bradley_terry;
pub mod crosstable;
pub mod curve;
pub mod entrant;
pub mod forfeits;
pub mod gamelog;
pub mod luck;
pub mod matches;
pub mod merge;
pub mod outside;
pub mod pairing;
pub mod puzzles;
pub mod report;
pub mod results;
pub mod review;
pub mod sprt;
pub mod stats;
pub mod tournament;
pub mod variant;
