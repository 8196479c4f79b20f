//! Study: what games and rule sets teach. Loss per move against a solved
//! table ([`analysis`]), the review's picture ([`review`]), puzzles mined
//! from exact values ([`puzzles`]) and the report on a rule set for its
//! designers ([`variant`]).

pub mod analysis;
pub mod puzzles;
pub mod review;
pub mod variant;
