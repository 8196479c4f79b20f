//! What one request may ask for: the bounds every front door enforces the
//! same way, and the defaults where a request leaves a count out.

/// The most turns a reviewed game may have (a game of the race family
/// lasts about 100 to 250 rolls, Senet about 150).
pub const MAX_REVIEW_TURNS: usize = 5_000;

/// The throws a `daily` request asks for when it gives no `count`.
pub const DEFAULT_DAILY_COUNT: u64 = 100;

/// Most throws one `daily` request may ask for.
pub const MAX_DAILY_COUNT: u64 = 100_000;

/// The largest rating (in absolute value) a `puzzle` request may ask for:
/// far beyond any rule set's scale, and small enough that distances to
/// puzzles' ratings stay exact.
pub const MAX_RATING: f64 = 100_000.0;
