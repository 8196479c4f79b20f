//! The parameters of a build, picked from the rule set: what a person used
//! to choose by hand for `scripts/levels.sh` and `scripts/hard.sh` (layer
//! widths, training budgets, the search depths tried, game counts), as
//! functions of the rule set's size, so a rule file gets what the shipped
//! rule sets were given.
//!
//! Budgets are counted in games, never in minutes, so that a build does
//! not depend on what else the machine is doing, and the same seed gives
//! the same model files. The figures behind each choice are in
//! docs/training.md ("Levels for any rule set").

use super::args::BuildArgs;
use anyhow::Result;
use sawah_engine::AnyGame;
use sawah_engine::race::{RuleSet, valid_position_count};

/// How the networks learn.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// The rule set is solved: the networks are distilled from the table,
    /// and every level is measured against perfect play.
    Exact {
        /// Positions in the table.
        states: u64,
    },
    /// No whole table: the networks learn by self-play, with the exact
    /// values of the late layers where a partial table (or Senet's
    /// endgame table) holds them, and the levels are measured against
    /// search (expectiminimax) and, on the covered positions, exactly.
    SelfPlay {
        /// Why there is no whole table.
        reason: String,
    },
}

/// One network's training.
#[derive(Clone, Debug, PartialEq)]
pub struct NetPlan {
    /// Hidden layer widths.
    pub hidden: Vec<usize>,
    /// Games of the first pass (distillation, or self-play).
    pub games: u64,
    /// Games of the second pass: every move's result where the choice
    /// matters (`choice_margin`), from the first pass's weights at a low
    /// learning rate, valued by the table (the exact route) or by a search
    /// over the network itself, exact where the late layers are known (the
    /// self-play route: expert iteration).
    pub polish_games: u64,
}

/// Everything the build will do, decided before it starts.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Solved or self-play (decided once `solve` has run or been refused).
    pub route: Route,
    /// The small network: easy, medium and the dial.
    pub small: NetPlan,
    /// Hard's network.
    pub hard: NetPlan,
    /// Hard's searches, cheapest first; the first that meets the target
    /// against perfect play is kept.
    pub searches: Vec<String>,
    /// Paired games per candidate in the search stage.
    pub search_games: u64,
    /// Games per pairing of the calibration round robin.
    pub calibration_games: u64,
    /// Games per pairing of the check round robin.
    pub check_games: u64,
    /// Games per pairing reviewed for the reference scale.
    pub reference_games: u64,
    /// Games of hard against perfect play on a fresh seed.
    pub verify_games: u64,
    /// Puzzles to mine.
    pub puzzles: usize,
    /// Games of the variant report.
    pub report_games: u64,
    /// Positions timed for hard's latency.
    pub latency_positions: u64,
}

/// The noise levels of the small network measured for the dial (σ in win
/// probability), as the shipped dials were measured, plus 0.04 and 0.02 so
/// that easy's and medium's usual settings are measured points.
pub const DIAL_NOISES: [f64; 7] = [0.32, 0.16, 0.08, 0.04, 0.02, 0.01, 0.0];

/// The target hard must meet against perfect play, luck-adjusted, before
/// the search stage stops going deeper (a little above the 0.495,
/// so that the fresh-seed verification has room for its noise).
pub const SEARCH_TARGET: f64 = 0.4975;

/// The rule sets the solver can index (fewer positions than its 32-bit
/// successor records name); past it only the late layers are solved.
pub const MAX_STATES: u64 = (1 << 30) - 1;

/// The route length the self-play budgets were measured on (ur's).
const UR_ROUTE: f64 = 14.0;

/// Games of TD(λ) on the self-play route: the small network's and hard's.
pub const SELF_PLAY_TD: (u64, u64) = (300_000, 400_000);

/// Games of expert iteration (targets from search) after TD(λ) on the
/// self-play route: the small network's and hard's.
pub const SELF_PLAY_SEARCH: (u64, u64) = (200_000, 300_000);

/// The Elo gap sought between easy and medium and between medium and hard:
/// the middle of the shipped rule sets' band (150 to 300).
pub const LEVEL_GAP: f64 = 225.0;

/// The band the gaps must fall in.
pub const GAP_BAND: (f64, f64) = (150.0, 300.0);

fn scaled(games: u64, effort: f64, least: u64) -> u64 {
    ((games as f64 * effort).round() as u64).max(least)
}

impl Plan {
    /// The plan for `game` at the build's effort. The route is the exact
    /// one for race rule sets until the solver says the table does not fit.
    pub fn for_game(game: &AnyGame, args: &BuildArgs) -> Result<Plan> {
        let effort = args.effort;
        let route = match game {
            AnyGame::Race(rules) => match u64::try_from(valid_position_count(rules)) {
                Ok(states) if states < MAX_STATES => Route::Exact { states },
                _ => Route::SelfPlay {
                    reason: format!(
                        "{} positions, more than the solver indexes",
                        valid_position_count(rules)
                    ),
                },
            },
            AnyGame::Senet(_) => Route::SelfPlay {
                reason: "Senet is not solved whole".into(),
            },
        };
        let mut plan = Plan {
            route,
            small: NetPlan {
                hidden: vec![128, 64],
                games: 0,
                polish_games: 0,
            },
            hard: NetPlan {
                hidden: vec![256, 128],
                games: 0,
                polish_games: 0,
            },
            searches: vec!["depth=1".into(), "depth=2".into(), "depth=3:focus=2".into()],
            search_games: scaled(2_000, effort, 20),
            calibration_games: scaled(400, effort, 10),
            check_games: scaled(400, effort, 10),
            reference_games: scaled(40, effort, 2),
            verify_games: scaled(4_000, effort, 20),
            puzzles: ((300.0 * effort.min(1.0)).round() as usize).max(5),
            report_games: scaled(1_000, effort, 20),
            latency_positions: scaled(1_000, effort, 20),
        };
        plan.set_budgets(game, effort);
        Ok(plan)
    }

    /// The training budgets for the route.
    fn set_budgets(&mut self, game: &AnyGame, effort: f64) {
        match (&self.route, game) {
            (Route::Exact { states }, _) => {
                // Distillation: games growing with the square root of the
                // positions to learn (ur-three-sticks, 14.7 M positions:
                // 230 k games; the 5-piece presets, 41 M: 385 k; the
                // 7-piece ones, 501 M: 500 k and 600 k), then a quarter as
                // many on every move's result (about 3.5 times the
                // positions a game). The learner, one thread, takes most
                // of a build's time: on 2 cores, 150 k positions a second
                // for hard's network, 370 k for the small one.
                let by_size = (*states as f64).sqrt() * 60.0;
                let small = by_size.clamp(100_000.0, 500_000.0) as u64;
                self.small.games = scaled(small, effort, 400);
                self.small.polish_games = scaled(small / 4, effort, 200);
                let hard = by_size.clamp(150_000.0, 600_000.0) as u64;
                self.hard.games = scaled(hard, effort, 400);
                self.hard.polish_games = scaled(hard / 4, effort, 200);
            }
            (Route::SelfPlay { .. }, game) => {
                // TD(λ) from scratch, exact where the late layers are
                // known, then expert iteration: every move's result valued
                // by a search over the network (docs/training.md, "Without
                // a whole table"; the budgets measured on ur against
                // perfect play, docs/benchmarks-log.md). A longer route
                // makes longer games: the budgets shrink with it, so that a
                // build takes about as long (a 20-square route: 0.7 × ur's).
                let length = match game {
                    AnyGame::Race(rules) => (UR_ROUTE / rules.route_len() as f64).min(1.0),
                    AnyGame::Senet(_) => 1.0,
                };
                let effort = effort * length;
                self.small.games = scaled(SELF_PLAY_TD.0, effort, 400);
                self.small.polish_games = scaled(SELF_PLAY_SEARCH.0, effort, 200);
                self.hard.games = scaled(SELF_PLAY_TD.1, effort, 400);
                self.hard.polish_games = scaled(SELF_PLAY_SEARCH.1, effort, 200);
                // Without perfect play to measure candidates against, hard
                // searches as deep as its latency allows (search.rs). Senet
                // searches one ply: two were measured no stronger twice
                // (models/ELO.md: the 2026-12-03 curves, and the
                // four-piece remake of 2026-12-07, +4 Elo at two plies
                // against +11 at one over the same baseline and dice).
                self.searches = match game {
                    AnyGame::Senet(_) => vec!["depth=1".into()],
                    AnyGame::Race(_) => vec!["depth=2".into(), "depth=3:focus=2".into()],
                };
            }
        }
    }

    /// The route changed to self-play (the table did not fit): budgets
    /// follow.
    pub fn go_self_play(&mut self, game: &AnyGame, reason: String, effort: f64) {
        self.route = Route::SelfPlay { reason };
        self.set_budgets(game, effort);
    }

    /// The route alone, in words: what a network's training depends on
    /// (the search candidates, also in [`Plan::summary`], do not).
    pub fn route_summary(&self) -> String {
        match &self.route {
            Route::Exact { states } => format!(
                "{states} positions, to be solved if the table fits --memory, then distilled"
            ),
            Route::SelfPlay { reason } => format!("self-play ({reason})"),
        }
    }

    /// One line for people.
    pub fn summary(&self) -> String {
        format!(
            "{}; networks {:?} ({} + {} games) and {:?} ({} + {} games); hard's search from {}",
            self.route_summary(),
            self.small.hidden,
            self.small.games,
            self.small.polish_games,
            self.hard.hidden,
            self.hard.games,
            self.hard.polish_games,
            self.searches.join(", ")
        )
    }
}

/// A rough distance between two race rule sets for transfer: how far apart
/// their routes, pieces, dice and marks are. Only rule sets whose inputs
/// mean the same (route length and pieces equal) are compared.
pub fn distance(a: &RuleSet, b: &RuleSet) -> Option<f64> {
    if a.route_len() != b.route_len() || a.pieces() != b.pieces() {
        return None;
    }
    let (da, db) = (a.dice().probabilities(), b.dice().probabilities());
    let rolls = da.len().max(db.len());
    let dice: f64 = (0..rolls)
        .map(|r| (da.get(r).copied().unwrap_or(0.0) - db.get(r).copied().unwrap_or(0.0)).abs())
        .sum::<f64>()
        / 2.0;
    let player = sawah_engine::Player::Light;
    let marks = (1..=a.route_len())
        .filter(|&s| a.is_marked_square(player, s) != b.is_marked_square(player, s))
        .count();
    let shared = (1..=a.route_len())
        .filter(|&s| a.is_shared_square(player, s) != b.is_shared_square(player, s))
        .count();
    let flags = [
        a.spec().marks.extra_roll != b.spec().marks.extra_roll,
        a.spec().marks.safe != b.spec().marks.safe,
        a.spec().capture_extra_roll != b.spec().capture_extra_roll,
    ]
    .iter()
    .filter(|&&f| f)
    .count();
    Some(4.0 * dice + marks as f64 + shared as f64 + 2.0 * flags as f64)
}
