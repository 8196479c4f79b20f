//! Ratings: what the games say about the players. Bradley–Terry Elo
//! ([`bradley_terry`]), Elo on luck-adjusted scores ([`adjusted`]), SPRT
//! ([`sprt`]), the crosstable and
//! forfeits ([`crosstable`], [`forfeits`]), and the tables and charts
//! written from them ([`report`], [`curve`]).

pub mod adjusted;
pub mod bradley_terry;
pub mod crosstable;
pub mod curve;
pub mod forfeits;
pub mod report;
pub mod sprt;
