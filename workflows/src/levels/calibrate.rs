//! Stages `calibration`, `reference` and `check`: the rule set's Elo scale,
//! easy's and medium's noise, the strength dial, and the measures that
//! check them, each a tournament whose command the report prints.
//!
//! * `calibration`: a round robin of random, perfect play (with a table;
//!   else expectiminimax two plies deep, the search the levels are then
//!   measured against), hard, and the small network at every noise of
//!   [`DIAL_NOISES`]: the scale (random = 0), the dial's points, and
//!   hard's Elo. Easy and medium get the noise the dial gives for
//!   [`LEVEL_GAP`] and twice it below hard (less when the whole scale is
//!   too short for two such gaps).
//! * `reference`: random and the levels, their games reviewed without the
//!   table (by hard one ply deeper, the reviews' reference where no table
//!   is at hand): each one's loss per move on that reference, the scale of
//!   strength estimates in reviews.
//! * `check`: random, the levels, perfect play and the dial at three
//!   targets, through the staged folder as a front door loads it: the
//!   levels' Elo and gaps, and how far the dial lands from its targets.

use super::build::Build;
use super::folder::{hard_model_name, small_model_name};
use super::networks::Network;
use super::plan::{DIAL_NOISES, GAP_BAND, LEVEL_GAP, Route};
use super::search::{Chosen, sha_of};
use super::work::Inputs;
use crate::tournament::run::{TournamentArgs, play_and_rate};
use anyhow::{Context, Result};
use sawah_agents::manifest::{Anchor, Dial, DialPoint, Level, Measured};
use sawah_eval::arena::tournament::{Format, Shard};
use sawah_eval::ratings::report::EloTable;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One agent's row of a tournament, as kept.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rated {
    /// The agent as the tournament named it.
    pub agent: String,
    /// Elo on the rule set's scale (random = 0).
    pub elo: f64,
    /// Its 95% interval.
    pub ci: (f64, f64),
    /// Its score over its games.
    pub score: f64,
    /// Its loss per move against perfect play, in percentage points, with
    /// a table.
    pub loss_pp: Option<f64>,
}

/// A tournament as kept: its rows and the command that plays it again.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Played {
    /// The rows, strongest first.
    pub rows: Vec<Rated>,
    /// The command that reproduces it.
    pub command: String,
    /// Games in it.
    pub games: u64,
}

impl Played {
    /// The row of `agent`.
    pub fn row(&self, agent: &str) -> Option<&Rated> {
        self.rows.iter().find(|r| r.agent == agent)
    }
}

/// What the calibration found and chose.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Calibration {
    /// The round robin.
    pub tournament: Played,
    /// The dial's points (noise, Elo).
    pub dial: Vec<(f64, f64)>,
    /// Hard's spec as the folder names its model.
    pub hard_spec: String,
    /// Hard's Elo and its interval.
    pub hard: Rated,
    /// Perfect play's Elo, with a table.
    pub perfect_elo: Option<f64>,
    /// Random's loss per move against perfect play (percentage points).
    pub random_loss_pp: Option<f64>,
    /// The Elo sought for medium and easy.
    pub targets: (f64, f64),
    /// The noise chosen for medium and easy.
    pub noise: (f64, f64),
    /// The gap sought between levels.
    pub gap: f64,
    /// What could not be done as planned, said plainly.
    pub notes: Vec<String>,
}

/// The rows of an Elo table, as kept.
fn rated(table: &EloTable) -> Vec<Rated> {
    table
        .rows
        .iter()
        .map(|row| Rated {
            agent: row.agent.clone(),
            elo: row.elo,
            ci: (row.ci_low, row.ci_high),
            score: row.score,
            loss_pp: row.loss_per_move_pp,
        })
        .collect()
}

/// The command line of a tournament (as `sawah tournament` takes it).
fn command_of(args: &TournamentArgs) -> String {
    let mut command = format!(
        "sawah tournament --rules {} --agents {} --games {} --seed {}",
        args.rules,
        args.agents.join(","),
        args.games,
        args.seed
    );
    if let Some(table) = &args.table {
        command.push_str(&format!(" --table {table}"));
    }
    if let Some(models) = &args.models {
        command.push_str(&format!(" --models {}", models.display()));
    }
    if args.anchor != "random=0" {
        command.push_str(&format!(" --anchor {}", args.anchor));
    }
    command.push_str(&format!(" --out {}", args.out.display()));
    command
}

/// Plays (or resumes) a round robin of `agents` into `out` through the
/// staged models folder, anchored as `anchor` says (NAME=ELO).
pub fn round_robin(
    build: &mut Build,
    agents: Vec<String>,
    (games, seed): (u64, u64),
    anchor: &str,
    out: &Path,
) -> Result<Played> {
    let args = TournamentArgs {
        rules: build.name().to_string(),
        agents,
        games,
        format: Format::RoundRobin,
        seed,
        out: out.to_path_buf(),
        shard: Shard::ALL,
        anchor: anchor.to_string(),
        prior: 2.0,
        table: build.table.as_ref().map(|t| t.display().to_string()),
        models: Some(build.staging.dir.clone()),
        outside: crate::entrants::OutsideArgs::default(),
        luck: crate::luck::LuckArgs::default(),
        command: None,
    };
    let table = play_and_rate(build.registry, &args, true, true)?;
    Ok(Played {
        rows: rated(&table),
        command: command_of(&args),
        games: table.games,
    })
}

/// The dial's spec text at one noise.
fn noisy(model: &str, noise: f64) -> String {
    if noise > 0.0 {
        format!("neural:model={model}:noise={noise}")
    } else {
        format!("neural:model={model}")
    }
}

/// Runs the calibration stage, and stages the models, levels, anchors and
/// dial it decides.
pub fn calibration(
    build: &mut Build,
    small: &Network,
    hard: &Network,
    chosen: &Chosen,
) -> Result<Calibration> {
    let mut inputs = build.base_inputs();
    inputs.insert("small network".into(), sha_of(build, small)?);
    inputs.insert("hard network".into(), sha_of(build, hard)?);
    inputs.insert("hard search".into(), chosen.search.clone());
    inputs.insert("games".into(), build.plan.calibration_games.to_string());
    let small_path = small.path(build).display().to_string();
    let hard_spec = chosen.spec(&hard.path(build).display().to_string());
    let calibration = build.stage("calibration", &inputs, |build, dir| {
        let exact = matches!(build.plan.route, Route::Exact { .. });
        let mut agents = vec!["random".to_string()];
        agents.push(if exact {
            "perfect".into()
        } else {
            "expectiminimax:depth=2".into()
        });
        agents.push(hard_spec.clone());
        agents.extend(DIAL_NOISES.iter().map(|&n| noisy(&small_path, n)));
        let seed = build.seed_for("calibration");
        let games = build.plan.calibration_games;
        let played = round_robin(
            build,
            agents,
            (games, seed),
            "random=0",
            &dir.file("tournament"),
        )?;
        Ok((decide(build, played, &small_path, &hard_spec)?, Vec::new()))
    })?;
    stage_levels(build, small, hard, &calibration)?;
    println!(
        "  hard {:.0} Elo (random 0{}); medium {:.0} at noise {}, easy {:.0} at noise {}",
        calibration.hard.elo,
        calibration
            .perfect_elo
            .map(|p| format!(", perfect play {p:.0}"))
            .unwrap_or_default(),
        calibration.targets.0,
        calibration.noise.0,
        calibration.targets.1,
        calibration.noise.1
    );
    for note in &calibration.notes {
        println!("  note: {note}");
    }
    Ok(calibration)
}

/// Reads the round robin: the dial, hard, and the noise of easy and medium.
fn decide(build: &Build, played: Played, small_path: &str, hard_spec: &str) -> Result<Calibration> {
    let hard = played
        .row(hard_spec)
        .cloned()
        .context("hard has no row in the calibration")?;
    let mut dial = Vec::new();
    for &noise in &DIAL_NOISES {
        let row = played
            .row(&noisy(small_path, noise))
            .context("a dial point has no row in the calibration")?;
        dial.push((noise, (row.elo * 10.0).round() / 10.0));
    }
    let points: Vec<DialPoint> = dial
        .iter()
        .map(|&(noise, elo)| DialPoint { noise, elo })
        .collect();
    let probe = Dial {
        rules: build.name().to_string(),
        model: String::new(),
        spec: String::new(),
        points,
    };
    let mut notes = Vec::new();
    // Two gaps of LEVEL_GAP below hard, unless the scale from random to
    // hard is too short: then three equal steps from random to hard.
    let gap = LEVEL_GAP.min(hard.elo / 3.0).max(0.0);
    if gap < GAP_BAND.0 {
        notes.push(format!(
            "hard is only {:.0} Elo above random, too little for two gaps of {} to {} Elo: the levels are {gap:.0} Elo apart",
            hard.elo, GAP_BAND.0, GAP_BAND.1
        ));
    }
    let targets = (hard.elo - gap, hard.elo - 2.0 * gap);
    let round = |n: f64| (n * 1e4).round() / 1e4;
    let noise = (
        round(probe.noise_for(targets.0)),
        round(probe.noise_for(targets.1)),
    );
    let (low, high) = probe.range();
    if targets.0 > high {
        notes.push(format!(
            "the small network plays at most {high:.0} Elo without noise, below medium's target {:.0}",
            targets.0
        ));
    }
    if targets.1 < low {
        notes.push(format!(
            "the small network at its noisiest plays {low:.0} Elo, above easy's target {:.0}",
            targets.1
        ));
    }
    let perfect_elo = played.row("perfect").map(|r| r.elo);
    let random_loss_pp = played.row("random").and_then(|r| r.loss_pp);
    Ok(Calibration {
        tournament: played,
        dial,
        hard_spec: hard_spec.to_string(),
        hard,
        perfect_elo,
        random_loss_pp,
        targets,
        noise,
        gap,
        notes,
    })
}

/// Copies the networks into the staging folder and writes the levels,
/// anchors and dial the calibration decided into its manifest.
fn stage_levels(
    build: &mut Build,
    small: &Network,
    hard: &Network,
    calibration: &Calibration,
) -> Result<()> {
    let rules = build.name().to_string();
    let small_name = small_model_name(&rules);
    let hard_name = hard_model_name(&rules);
    build.staging.put_file(&small_name, &small.path(build))?;
    if hard_name != small_name {
        build.staging.put_file(&hard_name, &hard.path(build))?;
    }
    let sha = |name: &str| super::work::sha256_file(&build.staging.dir.join(name));
    let (small_sha, hard_sha) = (sha(&small_name)?, sha(&hard_name)?);
    let encoder = sawah_agents::neural::NeuralNet::load_file(&small.path(build))?
        .encoder()
        .id()
        .to_string();
    let search = calibration
        .hard_spec
        .rsplit_once(".safetensors:")
        .map(|(_, search)| search.to_string())
        .unwrap_or_default();
    let level = |name: &str, spec: String, model: &str, sha: &str, measured| Level {
        rules: rules.clone(),
        level: name.to_string(),
        spec,
        model: Some(model.to_string()),
        sha256: Some(sha.to_string()),
        encoder: Some(encoder.clone()),
        measured,
    };
    let note = format!(
        "sawah levels build; Elo on {rules}'s scale (random = 0): {}",
        super::folder::report_md_name(&rules)
    );
    let [easy, medium, hard_figures] = level_figures(calibration, &note);
    build.entries.levels = vec![
        level(
            "easy",
            noisy(&small_name, calibration.noise.1),
            &small_name,
            &small_sha,
            easy,
        ),
        level(
            "medium",
            noisy(&small_name, calibration.noise.0),
            &small_name,
            &small_sha,
            medium,
        ),
        level(
            "hard",
            format!("neural:model={hard_name}:{search}"),
            &hard_name,
            &hard_sha,
            hard_figures,
        ),
    ];
    build.entries.anchors = anchors_of(&rules, calibration);
    build.entries.dial = Some(Dial {
        rules: rules.clone(),
        model: small_name.clone(),
        spec: format!("neural:model={small_name}"),
        points: calibration
            .dial
            .iter()
            .map(|&(noise, elo)| DialPoint { noise, elo })
            .collect(),
    });
    build.staging.write_manifest(&build.entries)?;
    build.staging.load(&build.source.game)?;
    Ok(())
}

/// What the calibration measured of easy, medium and hard, in that order.
fn level_figures(calibration: &Calibration, note: &str) -> [Measured; 3] {
    let on_the_dial = |elo: f64, noise: f64| Measured {
        elo: Some(elo.round()),
        noise: Some(noise),
        note: Some(note.to_string()),
        ..Measured::default()
    };
    [
        on_the_dial(calibration.targets.1, calibration.noise.1),
        on_the_dial(calibration.targets.0, calibration.noise.0),
        Measured {
            elo: Some(calibration.hard.elo.round()),
            elo_ci: Some([calibration.hard.ci.0.round(), calibration.hard.ci.1.round()]),
            loss_per_move: calibration.hard.loss_pp.map(|l| l / 100.0),
            note: Some(note.to_string()),
            ..Measured::default()
        },
    ]
}

/// The agents beside the levels on the rule set's scale: random (0), and
/// perfect play where the calibration measured it.
fn anchors_of(rules: &str, calibration: &Calibration) -> Vec<Anchor> {
    let mut anchors = vec![Anchor {
        rules: rules.to_string(),
        agent: "random".into(),
        elo: 0.0,
        loss_per_move: calibration.random_loss_pp.map(|l| l / 100.0),
        loss_per_move_by_reference: None,
    }];
    if let Some(elo) = calibration.perfect_elo {
        anchors.push(Anchor {
            rules: rules.to_string(),
            agent: "perfect".into(),
            elo: elo.round(),
            loss_per_move: Some(0.0),
            loss_per_move_by_reference: None,
        });
    }
    anchors
}

/// Each level's loss per move by the reviews' reference.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reference {
    /// Agent and loss per move (percentage points).
    pub losses: Vec<(String, f64)>,
    /// The tournament reviewed.
    pub command: String,
}

/// Runs the reference stage and puts its losses into the manifest.
pub fn reference(build: &mut Build, calibration: &Calibration) -> Result<Reference> {
    let mut inputs = staged_inputs(build, calibration)?;
    inputs.insert("games".into(), build.plan.reference_games.to_string());
    let reference = build.stage("reference", &inputs, |build, dir| {
        let agents: Vec<String> = ["random", "easy", "medium", "hard"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let seed = build.seed_for("reference");
        let out = dir.file("tournament");
        let games = build.plan.reference_games;
        let played = round_robin(build, agents, (games, seed), "random=0", &out)?;
        let results = out.join(sawah_eval::arena::results::RESULTS_FILE);
        let text = crate::review::read_text(&results)?;
        let files = crate::bots::BotFiles {
            models: Some(build.staging.dir.clone()),
            tables: Vec::new(),
        };
        let (totals, _) = crate::review::review_all(build.registry, &results, &text, &files, None)?;
        let losses = totals
            .iter()
            .map(|t| (t.agent.clone(), t.summary.mean_loss_pp))
            .collect();
        Ok((
            Reference {
                losses,
                command: format!(
                    "{}, then sawah review {} --all --models {}",
                    played.command,
                    results.display(),
                    build.staging.dir.display()
                ),
            },
            Vec::new(),
        ))
    })?;
    for (agent, loss) in &reference.losses {
        let loss = Some(loss / 100.0);
        if let Some(level) = build.entries.levels.iter_mut().find(|l| l.level == *agent) {
            level.measured.loss_per_move_by_reference = loss;
        }
        if let Some(anchor) = build.entries.anchors.iter_mut().find(|a| a.agent == *agent) {
            anchor.loss_per_move_by_reference = loss;
        }
    }
    build.staging.write_manifest(&build.entries)?;
    Ok(reference)
}

/// The inputs of a stage that plays the staged levels: the staged
/// manifest's levels and dial.
fn staged_inputs(build: &Build, calibration: &Calibration) -> Result<Inputs> {
    let mut inputs = build.base_inputs();
    for level in &build.entries.levels {
        inputs.insert(format!("{} spec", level.level), level.spec.clone());
        inputs.insert(
            format!("{} model", level.level),
            level.sha256.clone().unwrap_or_default(),
        );
    }
    inputs.insert("dial".into(), format!("{:?}", calibration.dial));
    inputs.insert("hard elo".into(), format!("{:.0}", calibration.hard.elo));
    Ok(inputs)
}

/// What the check found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Check {
    /// The round robin.
    pub tournament: Played,
    /// The dial's targets and where each landed (target, Elo, low, high).
    pub dial: Vec<(f64, f64, f64, f64)>,
    /// Easy, medium and hard as measured.
    pub levels: Vec<Rated>,
}

impl Check {
    /// The gaps easy → medium and medium → hard.
    pub fn gaps(&self) -> Option<(f64, f64)> {
        let elo = |n: &str| self.levels.iter().find(|r| r.agent == n).map(|r| r.elo);
        Some((elo("medium")? - elo("easy")?, elo("hard")? - elo("medium")?))
    }
}

/// The dial's three check targets: below easy, between easy and medium,
/// between medium and hard (as `scripts/dial-check.py` chose them).
fn dial_targets(calibration: &Calibration) -> [f64; 3] {
    let (medium, easy) = calibration.targets;
    let hard = calibration.hard.elo;
    [
        (easy - 150.0).max(easy / 2.0).round(),
        ((easy + medium) / 2.0).round(),
        ((medium + hard) / 2.0).round(),
    ]
}

/// Runs the check stage and puts the levels' measured Elo into the
/// manifest.
pub fn check(build: &mut Build, calibration: &Calibration) -> Result<Check> {
    let mut inputs = staged_inputs(build, calibration)?;
    inputs.insert("games".into(), build.plan.check_games.to_string());
    let targets = dial_targets(calibration);
    // On the calibration's scale through the strongest agent both share
    // (perfect play, else hard), not through random: random sits far below
    // the levels, and a rating that far from its anchor moves with the
    // pool of agents around it (tens of Elo on the 7-piece sets).
    let anchor = match calibration.perfect_elo {
        Some(elo) => format!("perfect={elo:.1}"),
        None => format!("hard={:.1}", calibration.hard.elo),
    };
    inputs.insert("anchor".into(), anchor.clone());
    let check = build.stage("check", &inputs, |build, dir| {
        let exact = matches!(build.plan.route, Route::Exact { .. });
        let mut agents: Vec<String> = ["random", "easy", "medium", "hard"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        agents.push(
            if exact {
                "perfect"
            } else {
                "expectiminimax:depth=2"
            }
            .into(),
        );
        agents.extend(targets.iter().map(|t| format!("elo={t}")));
        let seed = build.seed_for("check");
        let out = dir.file("tournament");
        let games = build.plan.check_games;
        let played = round_robin(build, agents, (games, seed), &anchor, &out)?;
        let dial = targets
            .iter()
            .filter_map(|t| {
                let row = played.row(&format!("elo={t}"))?;
                Some((*t, row.elo, row.ci.0, row.ci.1))
            })
            .collect();
        let levels = ["easy", "medium", "hard"]
            .iter()
            .filter_map(|n| played.row(n).cloned())
            .collect();
        Ok((
            Check {
                tournament: played,
                dial,
                levels,
            },
            Vec::new(),
        ))
    })?;
    for row in &check.levels {
        if row.agent == "hard" {
            continue;
        }
        if let Some(level) = build
            .entries
            .levels
            .iter_mut()
            .find(|l| l.level == row.agent)
        {
            let measured = &mut level.measured;
            measured.elo = Some(row.elo.round());
            measured.elo_ci = Some([row.ci.0.round(), row.ci.1.round()]);
            if let Some(loss) = row.loss_pp {
                measured.loss_per_move = Some(loss / 100.0);
            }
        }
    }
    build.staging.write_manifest(&build.entries)?;
    if let Some((low, high)) = check.gaps() {
        println!("  gaps: easy → medium {low:.0} Elo, medium → hard {high:.0} Elo");
    }
    for (target, elo, _, _) in &check.dial {
        println!("  dial at {target:.0}: {elo:.0} ({:+.0})", elo - target);
    }
    Ok(check)
}
