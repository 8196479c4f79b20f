//! Puzzles mined from exact values (the format is
//! [`sawah_agents::puzzle`]; `docs/puzzles.md` gives the method).
//!
//! 1. **Positions from real games.** Games between the levels (every
//!    ordered pairing in turn, dice and agent seeds from the run's seed)
//!    are played out; every decision whose moves reach at least
//!    [`MIN_CHOICES`] different positions is a candidate.
//! 2. **A clear best move.** The exact values (a solved table, or the late
//!    layers of a partial one; Senet: its endgame table, so only endgame
//!    positions) must put one move ahead of
//!    every move reaching another position by at least the margin.
//! 3. **A natural move that is wrong.** At least one of the natural agents
//!    (medium, easy and the heuristic by default) must choose a move that
//!    reaches another position than the best move.
//! 4. **Once.** A position and roll met twice is one puzzle (its id hashes
//!    them).
//! 5. **Rated by measurement.** A puzzle's rating is the Elo at which the
//!    rule set's strength dial ([`sawah_agents::manifest::Dial`]) finds the
//!    answer half the time, over [`RatingConfig::seeds`] noise seeds,
//!    found by bisection on the dial's Elo range. Where even the dial's
//!    noisiest setting finds it half the time, the rating is the bottom
//!    of the range ([`RatingBound::AtMost`]); where its noiseless setting
//!    does not, the rating is hard's Elo (at least, when hard misses it
//!    too: [`RatingBound::AtLeast`]).

use rayon::prelude::*;
use sawah_agents::endgame::{self, EndgameTable};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::manifest::Dial;
use sawah_agents::puzzle::{
    NaturalMove, Puzzle, PuzzleMove, RatingBound, margin_of, puzzle_id, same_result,
};
use sawah_agents::table::Table;
use sawah_agents::{Agent, AgentSpec, Assets, SpecError, perfect};
use sawah_engine::player::Player;
use sawah_engine::race::RuleSet;
use sawah_engine::seed::mix64;
use sawah_engine::senet::Senet;
use sawah_engine::tags::{Describe, Tag};
use sawah_engine::turns::play_turns;
use sawah_engine::{Codec, DiceSource, Game};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;

/// The margin, in percentage points of win probability, by which a
/// puzzle's best move must beat every move reaching another position,
/// unless a run asks for another: five points is a mistake a player
/// notices in their results, and a margin a table's rounding cannot touch.
pub const DEFAULT_MARGIN_PP: f64 = 5.0;

/// The fewest different positions a puzzle's moves must reach: with two,
/// a coin finds the answer half the time.
pub const MIN_CHOICES: usize = 3;

/// Exact values of moves: the reference a puzzle's answer comes from.
pub trait ExactValues<G: Game>: Sync {
    /// The mover's exact win probability after each of `moves`, or `None`
    /// where the reference does not cover the position.
    fn move_values(&self, game: &G, position: &G::Position, moves: &[G::Move]) -> Option<Vec<f64>>;
}

impl ExactValues<RuleSet> for Arc<Table> {
    fn move_values(
        &self,
        game: &RuleSet,
        position: &<RuleSet as Game>::Position,
        moves: &[<RuleSet as Game>::Move],
    ) -> Option<Vec<f64>> {
        // A partial table holds a position's successors when it holds the
        // position (its layers are closed under play).
        self.get(position)?;
        Some(
            moves
                .iter()
                .map(|&mv| perfect::move_value(game, self, position, mv))
                .collect(),
        )
    }
}

impl ExactValues<Senet> for Arc<EndgameTable> {
    fn move_values(
        &self,
        game: &Senet,
        position: &<Senet as Game>::Position,
        moves: &[<Senet as Game>::Move],
    ) -> Option<Vec<f64>> {
        self.value(position)?;
        endgame::move_values(game, self, position, moves)
    }
}

/// An agent by the name a puzzle file records and the spec that plays it.
#[derive(Clone, Debug)]
pub struct Named {
    /// How the file names it (`medium`).
    pub name: String,
    /// What plays (its models named as the assets hold them).
    pub spec: AgentSpec,
}

/// How puzzles are rated.
#[derive(Clone, Debug)]
pub struct RatingConfig {
    /// The rule set's strength dial.
    pub dial: Dial,
    /// Hard, and its Elo, for puzzles the noiseless dial misses.
    pub hard: Named,
    /// Hard's Elo on the rule set's scale.
    pub hard_elo: f64,
    /// Noise seeds per measured strength.
    pub seeds: u64,
}

/// What a mining run does.
#[derive(Clone, Debug)]
pub struct PuzzleConfig {
    /// How many puzzles to keep.
    pub count: usize,
    /// The seed of the games (dice and agents).
    pub seed: u64,
    /// The least margin, in percentage points.
    pub margin_pp: f64,
    /// The agents whose games are mined.
    pub players: Vec<Named>,
    /// The agents whose wrong choice makes a position a puzzle.
    pub natural: Vec<Named>,
    /// The most games played looking for `count` puzzles.
    pub max_games: u64,
}

/// What a mining run found: the puzzles (rated), and how many games it took.
#[derive(Clone, Debug)]
pub struct Mined {
    /// The puzzles, in the order their games were played.
    pub puzzles: Vec<Puzzle>,
    /// Games played.
    pub games: u64,
    /// Decisions with a choice seen in them.
    pub decisions: u64,
}

/// Plays games in batches until `config.count` distinct puzzles are found
/// (or `config.max_games` games are played), then keeps the first
/// `config.count` in game order. `progress` is told the games played and
/// the puzzles found after every batch.
pub fn mine<G, V>(
    game: &G,
    exact: &V,
    assets: &dyn Assets,
    config: &PuzzleConfig,
    progress: &(dyn Fn(u64, usize) + Sync),
) -> Result<Mined, SpecError>
where
    G: Codec + Describe + HasHeuristic + Sync + 'static,
    G::Position: Send + Sync,
    G::Move: Send + Sync,
    V: ExactValues<G>,
{
    let batch = (rayon::current_num_threads() as u64 * 8).max(8);
    let mut found: BTreeMap<String, Puzzle> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let (mut games, mut decisions) = (0, 0);
    while order.len() < config.count && games < config.max_games {
        let end = (games + batch).min(config.max_games);
        let results: Vec<(Vec<Puzzle>, u64)> = (games..end)
            .into_par_iter()
            .map(|index| mine_game(game, exact, assets, config, index))
            .collect::<Result<_, _>>()?;
        for (puzzles, seen) in results {
            decisions += seen;
            for puzzle in puzzles {
                if !found.contains_key(&puzzle.id) {
                    order.push(puzzle.id.clone());
                    found.insert(puzzle.id.clone(), puzzle);
                }
            }
        }
        games = end;
        progress(games, order.len());
    }
    order.truncate(config.count);
    let puzzles = order.iter().filter_map(|id| found.remove(id)).collect();
    Ok(Mined {
        puzzles,
        games,
        decisions,
    })
}

/// The seat assignment of game `index`: every ordered pairing of the
/// players in turn (a player against itself too).
fn seats(config: &PuzzleConfig, index: u64) -> (&Named, &Named) {
    let n = config.players.len() as u64;
    let light = &config.players[(index % n) as usize];
    let dark = &config.players[((index / n) % n) as usize];
    (light, dark)
}

/// Builds `named`'s agent for a game whose seeds are mixed with `mix`.
fn build<G: HasHeuristic + 'static>(
    game: &G,
    assets: &dyn Assets,
    named: &Named,
    mix: u64,
) -> Result<Box<dyn Agent<G> + Send>, SpecError> {
    AgentSpec {
        seed: named.spec.seed ^ mix,
        ..named.spec.clone()
    }
    .build_with(game, assets)
}

/// One game of the run: the puzzles met in it, and its decisions with a choice.
fn mine_game<G, V>(
    game: &G,
    exact: &V,
    assets: &dyn Assets,
    config: &PuzzleConfig,
    index: u64,
) -> Result<(Vec<Puzzle>, u64), SpecError>
where
    G: Codec + Describe + HasHeuristic + 'static,
    V: ExactValues<G>,
{
    let mix = mix64(config.seed ^ mix64(index.wrapping_add(1)));
    let mut dice = DiceSource::from_seed(mix);
    let (light, dark) = seats(config, index);
    let mut players = [
        build(game, assets, light, mix)?,
        build(game, assets, dark, mix)?,
    ];
    let mut natural = config
        .natural
        .iter()
        .map(|n| build(game, assets, n, mix))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut puzzles, mut decisions) = (Vec::new(), 0);
    // The engine's one game loop, with its roll cap (`MAX_ROLLS`).
    play_turns(
        game,
        game.start(),
        &mut dice,
        |turn| {
            let (position, moves) = (turn.position, turn.moves);
            let mover = &mut players[usize::from(turn.seat != Player::Light)];
            let chosen = mover.choose(game, position, turn.roll, moves);
            if has_choice(game, position, moves) {
                decisions += 1;
                // The roll's number: at most `MAX_ROLLS`, 100,000.
                let context = Found {
                    index,
                    turn: u32::try_from(turn.rolls).unwrap_or(u32::MAX),
                };
                if let Some(puzzle) = judge(
                    game,
                    exact,
                    config,
                    &mut natural,
                    position,
                    turn.roll,
                    moves,
                    context,
                ) {
                    puzzles.push(puzzle);
                }
            }
            Ok::<_, Infallible>(chosen)
        },
        |_, _| {},
    );
    Ok((puzzles, decisions))
}

/// Whether some two moves reach different positions.
fn has_choice<G: Game>(game: &G, position: &G::Position, moves: &[G::Move]) -> bool {
    moves
        .iter()
        .skip(1)
        .any(|&mv| !same_result(game, position, moves[0], mv))
}

/// How many different positions the moves reach.
fn distinct_results<G: Game>(game: &G, position: &G::Position, moves: &[G::Move]) -> usize {
    let mut seen: Vec<G::Position> = Vec::with_capacity(moves.len());
    for &mv in moves {
        let after = game.apply(position, mv).position;
        if !seen.contains(&after) {
            seen.push(after);
        }
    }
    seen.len()
}

/// Where a candidate was met.
#[derive(Clone, Copy)]
struct Found {
    index: u64,
    turn: u32,
}

/// The puzzle at this decision, if it is one (steps 2 and 3 of the module
/// docs), unrated.
#[allow(clippy::too_many_arguments)]
fn judge<G: Codec + Describe, V: ExactValues<G>>(
    game: &G,
    exact: &V,
    config: &PuzzleConfig,
    natural: &mut [Box<dyn Agent<G> + Send>],
    position: &G::Position,
    roll: u8,
    moves: &[G::Move],
    found: Found,
) -> Option<Puzzle> {
    if distinct_results(game, position, moves) < MIN_CHOICES {
        return None;
    }
    let values = exact.move_values(game, position, moves)?;
    let best = sawah_agents::evaluator::best_index(&values);
    let margin = margin_of(game, position, moves, &values, best)?;
    if margin < config.margin_pp {
        return None;
    }
    let mut wrong: Option<G::Move> = None;
    let mut by = Vec::new();
    for (agent, named) in natural.iter_mut().zip(&config.natural) {
        let choice = agent.choose(game, position, roll, moves);
        if !same_result(game, position, choice, moves[best]) {
            wrong.get_or_insert(choice);
            by.push(named.name.clone());
        }
    }
    let wrong = wrong?;
    let json = game.position_to_json(position);
    let notation = sawah_engine::notation::format(&json);
    Some(Puzzle {
        id: puzzle_id(game.name(), &notation, roll),
        position: json,
        roll,
        answer: game.move_json(moves[best]),
        moves: moves
            .iter()
            .zip(&values)
            .map(|(&mv, &value)| PuzzleMove {
                mv: game.move_json(mv),
                value: round6(value),
            })
            .collect(),
        margin_pp: 0.0,
        themes: themes(game, position, moves[best], wrong),
        natural: NaturalMove {
            mv: game.move_json(wrong),
            by,
        },
        rating: 0.0,
        rating_bound: None,
        game: found.index,
        turn: found.turn,
    })
    .map(|mut puzzle| {
        // The margin as the file's rounded values give it, so a reader
        // recomputes exactly what is written.
        let rounded: Vec<f64> = puzzle.moves.iter().map(|m| m.value).collect();
        puzzle.margin_pp = margin_of(game, position, moves, &rounded, best).map_or(0.0, round6);
        puzzle
    })
    .filter(|puzzle| puzzle.margin_pp >= config.margin_pp)
}

/// A value rounded to six decimals (a millionth of a point of win
/// probability is far below any margin), to keep files small.
fn round6(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

/// The themes of a puzzle: what the best move does (capture, safety,
/// extra roll, bear-off, blocking in Senet), `safety` too when it leaves
/// a clearly smaller chance to be hit than the natural move, and `race`
/// when none of these apply.
pub fn themes<G: Describe>(
    game: &G,
    position: &G::Position,
    best: G::Move,
    natural: G::Move,
) -> Vec<String> {
    let best_tags = game.describe(position, best);
    let natural_tags = game.describe(position, natural);
    let mut found: Vec<&str> = best_tags
        .tags
        .iter()
        .filter_map(|tag| match tag {
            Tag::Captures => Some("capture"),
            Tag::Safe | Tag::Protected | Tag::Beauty => Some("safety"),
            Tag::RollsAgain => Some("extra_roll"),
            Tag::BearsOff | Tag::Wins => Some("bear_off"),
            Tag::FormsWall => Some("blocking"),
            Tag::Enters | Tag::Water | Tag::Backward => None,
        })
        .collect();
    let risk = |t: &sawah_engine::tags::MoveTags| t.hit_chance.unwrap_or(0.0);
    if risk(&best_tags) + 0.05 < risk(&natural_tags) {
        found.push("safety");
    }
    if natural_tags.tags.contains(&Tag::Captures) && !best_tags.tags.contains(&Tag::Captures) {
        found.push("declined_capture");
    }
    if found.is_empty() {
        found.push("race");
    }
    let mut themes: Vec<&str> = Vec::new();
    for theme in found {
        if !themes.contains(&theme) {
            themes.push(theme);
        }
    }
    themes.into_iter().map(str::to_string).collect()
}

/// Rates every puzzle in place (step 5 of the module docs), in parallel.
pub fn rate<G>(
    game: &G,
    assets: &dyn Assets,
    rating: &RatingConfig,
    puzzles: &mut [Puzzle],
) -> Result<(), String>
where
    G: Codec + HasHeuristic + Sync + 'static,
{
    puzzles.par_iter_mut().try_for_each(|puzzle| {
        let (value, bound) = rate_one(game, assets, rating, puzzle)?;
        puzzle.rating = value.round();
        puzzle.rating_bound = bound;
        Ok(())
    })
}

/// The share of `seeds` noise seeds with which `spec` finds the puzzle's
/// answer (reaches the best move's position).
pub fn solve_rate<G: Codec + HasHeuristic + 'static>(
    game: &G,
    assets: &dyn Assets,
    spec: &AgentSpec,
    puzzle: &Puzzle,
    seeds: std::ops::Range<u64>,
) -> Result<f64, String> {
    let (position, moves) = puzzle.replay(game)?;
    let answer = puzzle
        .index_of(&puzzle.answer)
        .ok_or("the answer is not one of its moves")?;
    let count = seeds.end.saturating_sub(seeds.start).max(1);
    let mut solved = 0;
    for seed in seeds {
        let mut agent = AgentSpec {
            seed,
            ..spec.clone()
        }
        .build_with(game, assets)
        .map_err(|e| e.to_string())?;
        let choice = agent.choose(game, &position, puzzle.roll, &moves);
        solved += u64::from(same_result(game, &position, choice, moves[answer]));
    }
    Ok(solved as f64 / count as f64)
}

/// The dial's spec at `elo` (its model with the noise the dial gives, to
/// six places, as the shipped puzzles were rated).
pub fn dial_spec(dial: &Dial, elo: f64, rules: &str) -> Result<AgentSpec, String> {
    dial.spec_at(rules, elo, 6).map_err(|e| e.to_string())
}

fn rate_one<G: Codec + HasHeuristic + 'static>(
    game: &G,
    assets: &dyn Assets,
    rating: &RatingConfig,
    puzzle: &Puzzle,
) -> Result<(f64, Option<RatingBound>), String> {
    let seeds = 1..rating.seeds + 1;
    let finds = |elo: f64| -> Result<bool, String> {
        let spec = dial_spec(&rating.dial, elo, game.name())?;
        Ok(solve_rate(game, assets, &spec, puzzle, seeds.clone())? >= 0.5)
    };
    let (mut low, mut high) = rating.dial.range();
    if finds(low)? {
        return Ok((low, Some(RatingBound::AtMost)));
    }
    if !finds(high)? {
        let hard = solve_rate(game, assets, &rating.hard.spec, puzzle, 1..2)? >= 0.5;
        let bound = (!hard).then_some(RatingBound::AtLeast);
        return Ok((rating.hard_elo.max(high), bound));
    }
    // Bisection to about one Elo in a thousand-point range.
    for _ in 0..10 {
        let middle = 0.5 * (low + high);
        if finds(middle)? {
            high = middle;
        } else {
            low = middle;
        }
    }
    Ok((0.5 * (low + high), None))
}
