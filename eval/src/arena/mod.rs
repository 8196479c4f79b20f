//! The arena: where games are played and kept. Who takes a seat
//! ([`entrant`], outside bots in [`outside`]), the pair of games every
//! comparison is made of ([`pairing`]), the one game loop ([`gamelog`]),
//! the luck of each game measured as it is played ([`luck`]), matches and
//! tournaments ([`matches`], [`tournament`]), and the results files with
//! their merge ([`results`], [`merge`]).

pub mod entrant;
pub mod gamelog;
pub mod luck;
pub mod matches;
pub mod merge;
pub mod outside;
pub mod pairing;
pub mod results;
pub mod tournament;
