//! The integration tests of `engine`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod common;
mod conformance;
mod counts;
mod daily;
mod differential;
mod formats;
mod index;
mod perft;
mod properties;
mod rgn_fixtures;
mod royalur;
mod rule_files;
mod rules;
mod senet;
mod tags;
