//! Measuring agents: paired-dice matches with confidence intervals. (Full
//! tournaments, Elo tables and SPRT build on this.)

pub mod matches;
pub mod stats;
