//! Stage `hard-search`: hard's search, the cheapest that plays within
//! reach of perfect play. Each candidate of the plan (one ply, two plies,
//! three plies searching the best two moves) plays a luck-adjusted match
//! against perfect play, cheapest first, until one scores at least
//! [`SEARCH_TARGET`]; when none does, the best one is kept and the report
//! says so. Without a table (the self-play route) the deepest candidate
//! whose `choose` p99 is within [`LATENCY_BUDGET_MS`] on one thread is
//! taken, measured later against search and on the covered positions.

use super::build::Build;
use super::networks::Network;
use super::plan::{Route, SEARCH_TARGET};
use crate::entrants::OutsideArgs;
use crate::luck::LuckArgs;
use crate::matches::{MatchArgs, play};
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// One candidate as measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Candidate {
    /// The search options (`depth=2`).
    pub search: String,
    /// Luck-adjusted score against perfect play, with its 95% interval.
    pub adjusted: Option<(f64, f64, f64)>,
    /// Raw score against perfect play, with its 95% interval.
    pub raw: Option<(f64, f64, f64)>,
    /// Games played.
    pub games: u64,
    /// The seed of the match.
    pub seed: u64,
    /// On the self-play route: `choose`'s p99 latency on one thread, in
    /// milliseconds.
    #[serde(default)]
    pub p99_ms: Option<f64>,
}

/// What the stage chose.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Chosen {
    /// Hard's search options.
    pub search: String,
    /// Whether it met the target.
    pub met_target: bool,
    /// Every candidate measured, in order.
    pub candidates: Vec<Candidate>,
}

impl Chosen {
    /// Hard's spec on the network at `model` (a path or a folder's name).
    pub fn spec(&self, model: &str) -> String {
        format!("neural:model={model}:{}", self.search)
    }
}

/// Runs the stage.
pub fn run(build: &mut Build, hard: &Network) -> Result<Chosen> {
    let mut inputs = build.base_inputs();
    inputs.insert("network".into(), sha_of(build, hard)?);
    inputs.insert("searches".into(), build.plan.searches.join(" "));
    inputs.insert("games".into(), build.plan.search_games.to_string());
    let model = hard.path(build).display().to_string();
    let chosen = build.stage("hard-search", &inputs, |build, _dir| {
        let Route::Exact { .. } = build.plan.route else {
            return Ok((deepest_within_latency(build, &model)?, Vec::new()));
        };
        let seed = build.seed_for("hard-search");
        let mut candidates: Vec<Candidate> = Vec::new();
        for search in build.plan.searches.clone() {
            let candidate = measure(build, &format!("neural:model={model}:{search}"), seed)?;
            let (score, low, high) = candidate.adjusted.unwrap_or((0.0, 0.0, 0.0));
            println!(
                "  {search}: {score:.4} ({low:.4} to {high:.4}) luck-adjusted against perfect play"
            );
            let met = score >= SEARCH_TARGET;
            candidates.push(Candidate {
                search,
                ..candidate
            });
            if met {
                break;
            }
        }
        let best = candidates
            .iter()
            .filter(|c| c.adjusted.is_some_and(|a| a.0 >= SEARCH_TARGET))
            .chain(candidates.iter().max_by(|a, b| {
                let score = |c: &Candidate| c.adjusted.map_or(0.0, |a| a.0);
                score(a).total_cmp(&score(b))
            }))
            .next()
            .cloned();
        let search = best.as_ref().map(|c| c.search.clone()).unwrap_or_default();
        let met_target = best.is_some_and(|c| c.adjusted.is_some_and(|a| a.0 >= SEARCH_TARGET));
        Ok((
            Chosen {
                search,
                met_target,
                candidates,
            },
            Vec::new(),
        ))
    })?;
    println!(
        "  hard searches {}{}",
        chosen.search,
        if chosen.met_target || chosen.candidates.is_empty() {
            ""
        } else {
            " (the best measured; short of the target)"
        }
    );
    Ok(chosen)
}

/// The p99 latency of `choose` on one thread, in milliseconds, a search
/// may take on the self-play route: half the native target (20 ms), so
/// that a slower machine and the browser (about 2.5 times native) stay
/// within theirs.
pub const LATENCY_BUDGET_MS: f64 = 10.0;

/// The self-play route's choice, with no perfect play to measure against:
/// the deepest of the plan's searches whose `choose` p99 on one thread is
/// within [`LATENCY_BUDGET_MS`] (the shallowest when none is).
fn deepest_within_latency(build: &Build, model: &str) -> Result<Chosen> {
    let positions = build.plan.latency_positions as usize;
    let mut candidates = Vec::new();
    let mut chosen = None;
    for search in build.plan.searches.iter().rev() {
        let spec = sawah_agents::AgentSpec::parse(
            &format!("neural:model={model}:{search}"),
            build.name(),
        )?;
        let p99 = sawah_engine::with_game!(&build.source.game, g => {
            let mut agent = spec.build(g)?;
            crate::measure::choose_latency(g, agent.as_mut(), positions, 1)
        })
        .quantile(0.99);
        println!("  {search}: choose p99 {p99:.2} ms on one thread");
        candidates.push(Candidate {
            search: search.clone(),
            adjusted: None,
            raw: None,
            games: 0,
            seed: 0,
            p99_ms: Some(p99),
        });
        if p99 <= LATENCY_BUDGET_MS {
            chosen = Some(search.clone());
            break;
        }
    }
    let search = chosen
        .clone()
        .or_else(|| build.plan.searches.first().cloned())
        .unwrap_or_default();
    Ok(Chosen {
        search,
        met_target: chosen.is_some(),
        candidates,
    })
}

/// The SHA-256 of a network stage's model, as recorded.
pub fn sha_of(build: &Build, network: &Network) -> Result<String> {
    Ok(build
        .work
        .output_sha(&network.stage, super::networks::MODEL_FILE)?
        .unwrap_or_default())
}

/// Plays `spec` against perfect play, luck-adjusted, as `sawah match`
/// does.
fn measure(build: &mut Build, spec: &str, seed: u64) -> Result<Candidate> {
    let games = build.plan.search_games;
    let played = luck_match(build, spec, "perfect", games, seed)?;
    let interval = |i: sawah_eval::stats::Interval| (i.mean, i.low, i.high);
    Ok(Candidate {
        search: String::new(),
        adjusted: played.result.adjusted_score().map(interval),
        raw: Some(interval(played.result.score())),
        games: played.result.games(),
        seed,
        p99_ms: None,
    })
}

/// A luck-adjusted `sawah match` of `first` against `second` through the
/// staged models folder, with the table, under a progress bar.
pub fn luck_match(
    build: &mut Build,
    first: &str,
    second: &str,
    games: u64,
    seed: u64,
) -> Result<crate::matches::Played> {
    let table = build.table.clone();
    match_with(build, (first, second), table.as_deref(), games, seed)
}

/// A `sawah match` of the two agents through the staged models folder,
/// under a progress bar: luck-adjusted by `table` when there is one.
pub fn match_with(
    build: &mut Build,
    (first, second): (&str, &str),
    table: Option<&std::path::Path>,
    games: u64,
    seed: u64,
) -> Result<crate::matches::Played> {
    let args = MatchArgs {
        first: first.to_string(),
        second: second.to_string(),
        rules: build.name().to_string(),
        games,
        seed,
        models: Some(build.staging.dir.clone()),
        table: table.map(|t| t.display().to_string()),
        logs: None,
        outside: OutsideArgs::default(),
        luck: LuckArgs {
            luck_adjusted: table.is_some(),
            reference: None,
        },
    };
    let bar = crate::progress::bar(
        games.div_ceil(2),
        "{elapsed_precise} [{bar:30}] {pos}/{len} pairs ({rate}, ETA {eta})",
    );
    let played = play(build.registry, args, &|done| bar.set_position(done))?;
    bar.finish_and_clear();
    Ok(played)
}
