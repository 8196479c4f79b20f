//! Stages `puzzles` and `verify`: the puzzle set, and hard measured
//! against perfect play on a seed no other stage used (with its latency);
//! and the findings the report (`report_text`) tells.

use super::build::Build;
use super::calibrate::{Calibration, Check};
use super::folder::puzzles_name;
use super::networks::Network;
use super::plan::{GAP_BAND, Route};
use super::search::{Chosen, luck_match};
use crate::commands::puzzles::{GenerateArgs, generate_set};
use anyhow::Result;
use sawah_agents::manifest::PuzzleFile;
use serde::{Deserialize, Serialize};

/// The puzzle set made.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Puzzles {
    /// Puzzles kept (0: none made, see `note`).
    pub count: usize,
    /// Games mined.
    pub games: u64,
    /// Ratings: lowest, median, highest.
    pub ratings: (f64, f64, f64),
    /// The command that makes it again.
    pub command: Option<String>,
    /// Why there are none, when there are none.
    pub note: Option<String>,
}

/// The puzzles file in the stage's folder.
const PUZZLES_FILE: &str = "puzzles.jsonl";

/// Runs the puzzles stage and stages the set.
pub fn puzzles(build: &mut Build) -> Result<Puzzles> {
    let mut inputs = build.base_inputs();
    for level in &build.entries.levels {
        inputs.insert(format!("{} spec", level.level), level.spec.clone());
    }
    inputs.insert(
        "dial".into(),
        format!("{:?}", build.entries.dial.as_ref().map(|d| &d.points)),
    );
    inputs.insert("count".into(), build.plan.puzzles.to_string());
    let made = build.stage("puzzles", &inputs, |build, dir| {
        let Some(table) = build.table.clone() else {
            let note = "no puzzles: they need exact values (a solved table; for Senet, an endgame table from `sawah solve --rules senet --pieces K`, then `sawah puzzles generate`)";
            return Ok((
                Puzzles {
                    count: 0,
                    games: 0,
                    ratings: (0.0, 0.0, 0.0),
                    command: None,
                    note: Some(note.into()),
                },
                Vec::new(),
            ));
        };
        let args = GenerateArgs {
            rules: build.name().to_string(),
            table: table.clone(),
            count: build.plan.puzzles,
            seed: build.seed_for("puzzles"),
            margin: sawah_eval::study::puzzles::DEFAULT_MARGIN_PP,
            players: "easy,medium,hard".into(),
            natural: "medium,easy,heuristic".into(),
            rating_seeds: 64,
            max_games: 200_000,
            models: Some(build.staging.dir.clone()),
            out: dir.file(PUZZLES_FILE),
        };
        let made = generate_set(build.registry, &args, true)?;
        let mut ratings: Vec<f64> = made.set.puzzles.iter().map(|p| p.rating).collect();
        ratings.sort_by(f64::total_cmp);
        let count = ratings.len();
        let command = format!(
            "sawah puzzles generate --rules {} --table {} --count {} --seed {} --models {} --out {}",
            args.rules,
            table.display(),
            args.count,
            args.seed,
            build.staging.dir.display(),
            args.out.display()
        );
        Ok((
            Puzzles {
                count,
                games: made.games,
                ratings: (
                    ratings.first().copied().unwrap_or(0.0),
                    ratings.get(count / 2).copied().unwrap_or(0.0),
                    ratings.last().copied().unwrap_or(0.0),
                ),
                command: Some(command),
                note: (count < build.plan.puzzles).then(|| {
                    format!(
                        "{count} puzzles found in {} games, fewer than the {} sought",
                        made.games, build.plan.puzzles
                    )
                }),
            },
            if count > 0 {
                vec![PUZZLES_FILE.to_string()]
            } else {
                Vec::new()
            },
        ))
    })?;
    if made.count > 0 {
        let name = puzzles_name(build.name());
        let from = build.work.stage_dir("puzzles").join(PUZZLES_FILE);
        build.staging.put_file(&name, &from)?;
        build.entries.puzzles = Some(PuzzleFile {
            rules: build.name().to_string(),
            sha256: super::work::sha256_file(&build.staging.dir.join(&name))?,
            file: name,
            count: made.count,
        });
        build.staging.write_manifest(&build.entries)?;
        build.staging.load(&build.source.game)?;
    }
    println!(
        "  {} puzzles, ratings {:.0} to {:.0}",
        made.count, made.ratings.0, made.ratings.2
    );
    Ok(made)
}

/// Hard measured on a fresh seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verify {
    /// Whom hard played (`perfect`, or search without a table).
    pub opponent: String,
    /// Luck-adjusted score with its interval (with a table).
    pub adjusted: Option<(f64, f64, f64)>,
    /// Raw score with its interval.
    pub raw: (f64, f64, f64),
    /// Games.
    pub games: u64,
    /// The seed.
    pub seed: u64,
    /// The command that plays it again.
    pub command: String,
    /// Hard's `choose` latency on one thread: p50, p99, max (ms).
    pub latency_ms: (f64, f64, f64),
    /// The command that times it again.
    pub latency_command: String,
}

/// Runs the verify stage and puts its figures into hard's entry.
pub fn verify(build: &mut Build) -> Result<Verify> {
    let mut inputs = build.base_inputs();
    for level in &build.entries.levels {
        inputs.insert(format!("{} spec", level.level), level.spec.clone());
    }
    inputs.insert("games".into(), build.plan.verify_games.to_string());
    let verify = build.stage("verify", &inputs, |build, _dir| {
        let exact = matches!(build.plan.route, Route::Exact { .. });
        let opponent = if exact {
            "perfect"
        } else {
            "expectiminimax:depth=2"
        };
        let seed = build.seed_for("verify");
        let games = build.plan.verify_games;
        let (adjusted, raw) = if exact {
            let played = luck_match(build, "hard", opponent, games, seed)?;
            let interval = |i: sawah_eval::stats::Interval| (i.mean, i.low, i.high);
            (
                played.result.adjusted_score().map(interval),
                interval(played.result.score()),
            )
        } else {
            let args = crate::commands::matches::MatchArgs {
                first: "hard".into(),
                second: opponent.into(),
                rules: build.name().to_string(),
                games,
                seed,
                models: Some(build.staging.dir.clone()),
                table: None,
                logs: None,
                outside: crate::entrants::OutsideArgs::default(),
                luck: crate::luck::LuckArgs::default(),
            };
            let played = crate::commands::matches::play(build.registry, args, &|_| {})?;
            let score = played.result.score();
            (None, (score.mean, score.low, score.high))
        };
        let models = build.staging.dir.display().to_string();
        let rules = build.name().to_string();
        let mut command = format!(
            "sawah match hard {opponent} --rules {rules} --models {models} --games {games} --seed {seed}"
        );
        if let Some(table) = &build.table {
            command.push_str(&format!(" --table {} --luck-adjusted", table.display()));
        }
        let latency_ms = latency(build)?;
        Ok((
            Verify {
                opponent: opponent.to_string(),
                adjusted,
                raw,
                games,
                seed,
                command,
                latency_ms,
                latency_command: format!(
                    "sawah bench-choose --rules {rules} --agents hard --models {models} --positions {}",
                    build.plan.latency_positions
                ),
            },
            Vec::new(),
        ))
    })?;
    if let Some((score, low, high)) = verify.adjusted {
        println!(
            "  hard against perfect play on a fresh seed: {score:.4} ({low:.4} to {high:.4}), luck-adjusted"
        );
    }
    println!(
        "  hard's choose: p50 {:.2} ms, p99 {:.2} ms (one thread)",
        verify.latency_ms.0, verify.latency_ms.1
    );
    Ok(verify)
}

/// Hard's `choose` latency as `sawah bench-choose` measures it.
fn latency(build: &Build) -> Result<(f64, f64, f64)> {
    let models = sawah_agents::manifest::Models::load(&build.staging.dir)?;
    let spec = crate::models::spec_of(&Some(models), "hard", build.name())?;
    let positions = build.plan.latency_positions as usize;
    let result = sawah_engine::with_game!(&build.source.game, g => {
        let mut agent = spec.build(g)?;
        crate::commands::bench::measure::choose_latency(g, agent.as_mut(), positions, 1)
    });
    Ok((
        result.quantile(0.5),
        result.quantile(0.99),
        result.quantile(1.0),
    ))
}

/// Everything the report tells.
pub struct Findings<'a> {
    /// The small network.
    pub small: &'a Network,
    /// Hard's network.
    pub hard: &'a Network,
    /// Hard's search.
    pub search: &'a Chosen,
    /// The calibration.
    pub calibration: &'a Calibration,
    /// The check.
    pub check: &'a Check,
    /// The puzzles.
    pub puzzles: &'a Puzzles,
    /// Hard on a fresh seed.
    pub verify: &'a Verify,
}

/// Whether a gap between levels lies in the shipped sets' band.
pub fn in_band(gap: f64) -> bool {
    (GAP_BAND.0..=GAP_BAND.1).contains(&gap)
}
