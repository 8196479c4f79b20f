//! Stages `puzzles` and `verify`: the puzzle set, and hard measured
//! against perfect play on a seed no other stage used (with its latency);
//! and the findings the report (`report_text`) tells.

use super::build::Build;
use super::calibrate::{Calibration, Check};
use super::folder::puzzles_name;
use super::networks::Network;
use super::plan::{GAP_BAND, Route};
use super::search::Chosen;
use crate::puzzles::{GenerateArgs, generate_set};
use anyhow::{Context, Result};
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
        // Exact values: the whole table, else the late layers' (a partial
        // table, or Senet's endgame table).
        let Some(table) = build.table.clone().or_else(|| build.endgame.clone()) else {
            let note = "no puzzles: they need exact values, and not even the last layers of the game fit --memory";
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
            keep: None,
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

/// Hard's play on the positions known exactly, in the verify games.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Covered {
    /// What the exact values are, in words.
    pub what: String,
    /// Hard's decisions in the games (moves with more than one choice).
    pub decisions: u64,
    /// Of those, the ones in positions known exactly.
    pub covered: u64,
    /// Hard's mean loss per covered decision, in percentage points.
    pub loss_pp: f64,
    /// Its mistakes and blunders there.
    pub mistakes: u64,
    /// See [`Covered::mistakes`].
    pub blunders: u64,
    /// The command that reviews them again (after the tournament's).
    pub command: String,
}

/// Hard in a match of its own, on the verify seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Versus {
    /// Whom hard played, as the report names it.
    pub opponent: String,
    /// Luck-adjusted score with its interval (with a whole table).
    pub adjusted: Option<(f64, f64, f64)>,
    /// Raw score with its interval.
    pub raw: (f64, f64, f64),
    /// Games.
    pub games: u64,
    /// The command that plays it again.
    pub command: String,
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
    /// On the self-play route: hard's play where the late positions are
    /// known exactly.
    #[serde(default)]
    pub covered: Option<Covered>,
    /// Against the shipped hard level of a built-in rule set.
    #[serde(default)]
    pub shipped: Option<Versus>,
    /// Against perfect play by a whole table the build did not train
    /// with (`--table`), on the self-play route.
    #[serde(default)]
    pub perfect: Option<Versus>,
}

/// Runs the verify stage and puts its figures into hard's entry.
pub fn verify(build: &mut Build) -> Result<Verify> {
    let mut inputs = build.base_inputs();
    for level in &build.entries.levels {
        inputs.insert(format!("{} spec", level.level), level.spec.clone());
    }
    inputs.insert("games".into(), build.plan.verify_games.to_string());
    if let Some(table) = &build.args.table {
        inputs.insert("table".into(), super::work::sha256_file(table)?);
    }
    let verify = build.stage("verify", &inputs, |build, dir| {
        let exact = matches!(build.plan.route, Route::Exact { .. });
        let seed = build.seed_for("verify");
        let models = build.staging.dir.display().to_string();
        let rules = build.name().to_string();
        let latency_ms = latency(build)?;
        let latency_command = format!(
            "sawah bench-choose --rules {rules} --agents hard --models {models} --positions {}",
            build.plan.latency_positions
        );
        let mut verify = if exact {
            let played = versus(build, "perfect", build.table.clone(), seed)?;
            Verify {
                opponent: "perfect".into(),
                adjusted: played.adjusted,
                raw: played.raw,
                games: played.games,
                seed,
                command: played.command,
                latency_ms,
                latency_command,
                covered: None,
                shipped: None,
                perfect: None,
            }
        } else {
            self_play_verify(build, dir, seed, latency_ms, latency_command)?
        };
        verify.shipped = against_shipped(build, dir, seed)?;
        Ok((verify, Vec::new()))
    })?;
    if let Some((score, low, high)) = verify.adjusted {
        println!(
            "  hard against perfect play on a fresh seed: {score:.4} ({low:.4} to {high:.4}), luck-adjusted"
        );
    } else {
        let (score, low, high) = verify.raw;
        println!(
            "  hard against {} on a fresh seed: {score:.3} ({low:.3} to {high:.3})",
            verify.opponent
        );
    }
    if let Some(covered) = &verify.covered {
        println!(
            "  hard on the positions known exactly: {:.4} pp lost per decision over {} decisions, {:.1}% of its decisions",
            covered.loss_pp,
            covered.covered,
            100.0 * covered.covered as f64 / covered.decisions.max(1) as f64
        );
    }
    for versus in [&verify.perfect, &verify.shipped].into_iter().flatten() {
        let (score, low, high) = versus.adjusted.unwrap_or(versus.raw);
        println!(
            "  hard against {}: {score:.4} ({low:.4} to {high:.4}){}",
            versus.opponent,
            if versus.adjusted.is_some() {
                ", luck-adjusted"
            } else {
                ""
            }
        );
    }
    println!(
        "  hard's choose: p50 {:.2} ms, p99 {:.2} ms (one thread)",
        verify.latency_ms.0, verify.latency_ms.1
    );
    Ok(verify)
}

/// The verify stage on the self-play route: hard against
/// expectiminimax two plies deep in a tournament whose games are then
/// reviewed where the late positions are known exactly, and against
/// perfect play when `--table` gives a whole table.
fn self_play_verify(
    build: &mut Build,
    dir: &super::work::StageDir,
    seed: u64,
    latency_ms: (f64, f64, f64),
    latency_command: String,
) -> Result<Verify> {
    let opponent = "expectiminimax:depth=2";
    let games = build.plan.verify_games;
    let out = dir.file("tournament");
    let played = super::calibrate::round_robin(
        build,
        vec!["hard".into(), opponent.into()],
        (games, seed),
        &format!("{opponent}=0"),
        &out,
    )?;
    let hard = played
        .row("hard")
        .context("hard has no row in the verify games")?;
    // The score's interval from the games' count (paired games, so a
    // little wider than they need).
    let n = played.games.max(1) as f64;
    let half = 1.96 * (hard.score * (1.0 - hard.score) / n).sqrt();
    let mut verify = Verify {
        opponent: opponent.to_string(),
        adjusted: None,
        raw: (hard.score, hard.score - half, hard.score + half),
        games: played.games,
        seed,
        command: played.command.clone(),
        latency_ms,
        latency_command,
        covered: None,
        shipped: None,
        perfect: None,
    };
    if let Some(endgame) = build.endgame.clone() {
        let results = out.join("results.jsonl");
        let text = crate::review::read_text(&results)?;
        let records = crate::review::all_games(&results, &text)?;
        let name_of = |k: usize| format!("{}: game {}", results.display(), k + 1);
        let (totals, what) =
            crate::review::covered_review(build.registry, &records, &endgame, &name_of)?;
        let hard = totals
            .iter()
            .find(|t| t.agent == "hard")
            .context("hard has no review")?;
        verify.covered = Some(Covered {
            what,
            decisions: hard.decisions,
            covered: hard.covered,
            loss_pp: hard.mean_loss_pp,
            mistakes: hard.mistakes,
            blunders: hard.blunders,
            command: format!(
                "sawah review {} --all --endgame {}",
                results.display(),
                endgame.display()
            ),
        });
    }
    if let Some(table) = build.args.table.clone() {
        verify.perfect = Some(versus(build, "perfect", Some(table), seed)?);
    }
    Ok(verify)
}

/// Hard against `opponent` in a match on the staged folder: luck-adjusted
/// by `table` when there is one.
fn versus(
    build: &mut Build,
    opponent: &str,
    table: Option<std::path::PathBuf>,
    seed: u64,
) -> Result<Versus> {
    let games = build.plan.verify_games;
    let played =
        super::search::match_with(build, ("hard", opponent), table.as_deref(), games, seed)?;
    let interval = |i: sawah_eval::stats::Interval| (i.mean, i.low, i.high);
    let mut command = format!(
        "sawah match hard {opponent} --rules {} --models {} --games {games} --seed {seed}",
        build.name(),
        build.staging.dir.display()
    );
    if let Some(table) = &table {
        command.push_str(&format!(" --table {} --luck-adjusted", table.display()));
    }
    Ok(Versus {
        opponent: opponent.to_string(),
        adjusted: played.result.adjusted_score().map(interval),
        raw: interval(played.result.score()),
        games: played.result.games(),
        command,
    })
}

/// Hard against the shipped hard level of the same built-in rule set
/// (its model written beside the stage under its own name), when there
/// is one: luck-adjusted when a whole table is at hand.
fn against_shipped(
    build: &mut Build,
    dir: &super::work::StageDir,
    seed: u64,
) -> Result<Option<Versus>> {
    let name = build.name().to_string();
    let builtin = sawah_engine::Registry::new().get(&name).ok();
    let same_rules = builtin.is_some_and(|g| {
        sawah_engine::with_game!(&g, x => sawah_engine::Codec::rules_digest(x))
            == sawah_engine::with_game!(&build.source.game, x => sawah_engine::Codec::rules_digest(x))
    });
    let shipped = sawah_agents::manifest::Models::shipped();
    let level = shipped
        .manifest()
        .levels
        .iter()
        .find(|l| l.rules == name && l.level == "hard");
    let (true, Some(level)) = (same_rules, level) else {
        return Ok(None);
    };
    let (Some(model), Some(search)) = (&level.model, level.spec.split_once(".safetensors:")) else {
        return Ok(None);
    };
    let Some(bytes) = sawah_agents::shipped::file(model) else {
        return Ok(None);
    };
    let path = dir.file(&format!("shipped-{model}"));
    sawah_agents::files::write_atomically(&path, bytes)?;
    let spec = format!("neural:model={}:{}", path.display(), search.1);
    let table = build.table.clone().or_else(|| build.args.table.clone());
    let mut versus = versus(build, &spec, table, seed)?;
    versus.opponent = format!("the shipped hard ({})", level.spec);
    Ok(Some(versus))
}

/// Hard's `choose` latency as `sawah bench-choose` measures it.
fn latency(build: &Build) -> Result<(f64, f64, f64)> {
    let models = sawah_agents::manifest::Models::load(&build.staging.dir)?;
    let spec = crate::models::spec_of(&Some(models), "hard", build.name())?;
    let positions = build.plan.latency_positions as usize;
    let result = sawah_engine::with_game!(&build.source.game, g => {
        let mut agent = spec.build(g)?;
        crate::measure::choose_latency(g, agent.as_mut(), positions, 1)
    });
    Ok((
        result.quantile(0.5),
        result.quantile(0.99),
        result.quantile(1.0),
    ))
}

/// Everything the report tells.
pub struct Findings<'a> {
    /// The positions known exactly, on the self-play route.
    pub late: Option<&'a super::solve::Late>,
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
