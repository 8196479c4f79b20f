//! `sawah`: play, serve the bot protocol, list moves, describe rule sets, benchmark.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use sawah_agents::AgentSpec;
use sawah_cli::tournament::{SprtArgs, TournamentArgs};
use sawah_cli::{bench, bot, describe, play, solve, tournament, train};
use sawah_engine::registry::Registry;
use sawah_engine::senet::daily::{self, DailyThrows};
use sawah_engine::{AnyGame, Player, with_game};
use sawah_eval::matches::play_match;
use sawah_eval::stats::elo_from_score;
use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::time::Duration;

/// Computer opponents and tools for Sawah's ancient race games: Twenty
/// Squares, the Royal Game of Ur and Senet.
#[derive(Parser, Debug)]
#[command(name = "sawah", version)]
struct Cli {
    /// Load an extra rule set from a TOML or JSON rule file (repeatable); its
    /// name can then be used wherever a rule set is named.
    #[arg(long = "rules-file", global = true, value_name = "PATH")]
    rules_files: Vec<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Side {
    Light,
    Dark,
}

impl From<Side> for Player {
    fn from(side: Side) -> Player {
        match side {
            Side::Light => Player::Light,
            Side::Dark => Player::Dark,
        }
    }
}

/// How an Elo table is made (shared by `tournament` and `elo`).
#[derive(clap::Args, Debug)]
struct RatingArgs {
    /// The agent whose rating is fixed, and its rating (NAME=ELO; default
    /// random=0, or the first agent if random is not playing).
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
    /// Virtual drawn games per pairing, so a clean sweep still gets a finite rating.
    #[arg(long, default_value_t = 2.0)]
    prior: f64,
    /// A solved table: adds each agent's mean win probability lost per
    /// move (and, in a tournament, is the table of `perfect` agents that name none).
    #[arg(long, value_name = "PATH")]
    table: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a game in the terminal against the computer.
    Play(PlayArgs),
    /// Play two agents against each other with paired dice (each dice
    /// sequence twice, seats swapped) and report the first agent's score.
    Match(MatchArgs),
    /// Play a tournament: every pairing (or the first agent against each
    /// other) with paired dice, in parallel; every game appended to
    /// DIR/results.jsonl (rerun the same command to resume), then an Elo
    /// table written to DIR as elo.md, elo.csv, elo.json and elo.svg.
    Tournament(TournamentCommandArgs),
    /// Merge the results of tournament folders (shards, reruns, machines)
    /// into one Elo table; games present in several folders count once.
    Elo {
        /// Tournament folders (each with a results.jsonl).
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to write elo.md, elo.csv, elo.json and elo.svg.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[command(flatten)]
        rating: RatingArgs,
    },
    /// Sequential probability ratio test: play paired games of a new agent
    /// against a base one until the evidence says which hypothesis holds
    /// (pentanomial model on game pairs).
    Sprt(SprtCommandArgs),
    /// Train a neural value network: self-play TD(lambda), or distillation
    /// from a solved table (see docs/training.md). Progress, TensorBoard
    /// logs (FOLDER/tb), checkpoints and evaluations go to the run folder.
    Train {
        /// Rule set name or rule file path.
        #[arg(long)]
        rules: Option<String>,
        /// Settings file (TOML or JSON; see docs/training.md).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Override a setting: key=value (repeatable), e.g. --set hidden=[64] --set minutes=30.
        #[arg(long, value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// The new run's folder.
        #[arg(long, value_name = "FOLDER")]
        out: Option<PathBuf>,
        /// Continue the run in this folder from its last checkpoint.
        #[arg(long, value_name = "FOLDER")]
        resume: Option<PathBuf>,
    },
    /// Write a run's network as a model file (SafeTensors) with its manifest
    /// entry (FILE.json), for models/ and `neural:model=FILE`.
    Export {
        /// The run folder.
        run: PathBuf,
        /// The model file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Solve a race rule set exactly: every position's win probability for
    /// the side to move. Prints layers, sweeps, time and the start's value.
    Solve {
        /// Rule set name or rule file path (race family).
        #[arg(long)]
        rules: String,
        /// Stop when a read-only pass shows max |T(V) - V| at most this.
        #[arg(long, default_value_t = 1e-10)]
        tolerance: f64,
        /// Print every sweep, not only every layer pair.
        #[arg(long)]
        verbose: bool,
        /// Write the table here (with a header; atomically).
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        /// How the table stores values: f32 (for play), or u16 (half the
        /// size, within 7.6e-6 of the solved values).
        #[arg(long, default_value_t = sawah_agents::table::ValueType::F32)]
        values: sawah_agents::table::ValueType,
        /// Memory for the values and the recorded moves, in GiB: each layer
        /// pair records every move, or as many candidate moves per roll as
        /// fit (up to 4), keeping each roll's choice among them when that
        /// fits too; fewer cost more Bellman passes. With --out only the
        /// values a pair reads are held (the rest are in the checkpoints).
        /// Peak use is about this plus a few tens of MB (the table is
        /// streamed to disk), so the default keeps the 7-piece solves under
        /// 8 GiB.
        #[arg(long, value_name = "GIB", default_value_t = 7.75)]
        memory: f64,
        /// Do not extrapolate the values along the sweeps' changes when
        /// they shrink by a steady ratio (for measuring what it gains).
        #[arg(long)]
        no_extrapolation: bool,
    },
    /// Write a smaller copy of a solved table: values quantised to u16,
    /// each within 7.6e-6 of the f32 table's (for downloads).
    Quantize {
        /// Rule set name or rule file path (race family).
        #[arg(long)]
        rules: String,
        /// The solved f32 table.
        #[arg(long, value_name = "PATH")]
        table: PathBuf,
        /// Where to write the u16 table (atomically).
        #[arg(long, value_name = "PATH")]
        out: PathBuf,
    },
    /// Measure search: nodes and speed of plain expectiminimax and Star2 on
    /// positions from random games.
    BenchSearch(BenchSearchArgs),
    /// Measure neural evaluation speed: positions from random games
    /// evaluated one at a time (batch size 1) on one core.
    BenchNeural(BenchNeuralArgs),
    /// Measure how long the levels (or any agents) take to choose a move:
    /// p50, p99 and max over positions from random games, one thread.
    BenchChoose(BenchChooseArgs),
    /// Time the bot protocol in this process: answer every request line of
    /// a file (as `sawah bot` would, with the shipped models loaded once)
    /// and print one line per request, {"line":N,"micros":T}, for comparing
    /// with other front doors (the browser package's benchmark uses it).
    BenchProtocol {
        /// JSON-lines file of requests.
        #[arg(value_name = "FILE")]
        requests: PathBuf,
        /// The models folder (as for `sawah bot`).
        #[arg(long, value_name = "DIR")]
        models: Option<PathBuf>,
        /// Answer the whole file this many times first, untimed (warm-up).
        #[arg(long, default_value_t = 1)]
        warmup: usize,
    },
    /// Serve the JSON-lines bot protocol on stdin/stdout until end of input.
    Bot {
        #[command(flatten)]
        files: bot::BotFiles,
        /// Requests come from people or programs not trusted with this
        /// machine: read no file a request names by path (only levels and
        /// the file names of the models and tables given here), and bound
        /// each request's cost (the limits below).
        #[arg(long)]
        untrusted: bool,
        #[command(flatten)]
        limits: bot::LimitArgs,
    },
    /// Serve the opponents over HTTP (the bot protocol, resource routes,
    /// health, metrics, OpenAPI) until SIGTERM or SIGINT; see docs/server.md.
    Serve(sawah_cli::serve::ServeArgs),
    /// Load-test a `sawah serve`: `choose` requests from many connections,
    /// with throughput, latency quantiles, errors and server memory.
    Loadtest(sawah_cli::serve::LoadtestArgs),
    /// List the legal moves for a position and roll, with the resulting positions.
    Moves {
        /// Rule set the position must belong to (optional: the position names its rules).
        #[arg(long)]
        rules: Option<String>,
        /// The position, as JSON or in notation (e.g. "sawah light 3/1,5,9/1 7/-/0").
        #[arg(long)]
        position: String,
        /// The roll.
        #[arg(long)]
        roll: u8,
        /// Print the bot protocol's JSON response instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Describe a rule set, or list them all when none is named.
    Rules {
        /// Rule set name or rule file path.
        name: Option<String>,
        /// Export everything a front end needs to draw and play it, as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure random-playout speed (roll, generate, pick, apply) on one core.
    Bench(BenchArgs),
}

/// The arguments of `sawah tournament`.
#[derive(clap::Args, Debug)]
struct TournamentCommandArgs {
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    rules: String,
    /// The agents: specs or presets separated by commas (repeatable),
    /// e.g. random,heuristic,easy,expectiminimax:depth=2.
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        value_name = "SPEC,SPEC,..."
    )]
    agents: Vec<String>,
    /// Games per pairing (rounded up to whole pairs).
    #[arg(long, default_value_t = 200)]
    games: u64,
    /// round-robin (everyone plays everyone) or gauntlet (the first
    /// agent plays each of the others).
    #[arg(long, default_value = "round-robin", value_parser = clap::value_parser!(String))]
    format: String,
    /// Seed for the schedule's dice (and the agents' choices).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output folder (results and Elo tables).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Play shard K of N: a disjoint, deterministic share of the schedule
    /// (merge the folders with `sawah elo`).
    #[arg(long, default_value = "1/1", value_name = "K/N")]
    shard: String,
    #[command(flatten)]
    rating: RatingArgs,
}

/// The arguments of `sawah sprt`.
#[derive(clap::Args, Debug)]
struct SprtCommandArgs {
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    rules: String,
    /// The candidate agent.
    #[arg(long, value_name = "SPEC")]
    new: String,
    /// The agent it must beat.
    #[arg(long, value_name = "SPEC")]
    base: String,
    /// Elo difference under H0.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// Elo difference under H1.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// False-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// What the Elo bounds mean: logistic or normalized.
    #[arg(long, default_value = "logistic", value_parser = tournament::parse_model)]
    model: sawah_eval::sprt::EloModel,
    /// Seed for the dice of every pair.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Pairs played between checks (the result does not depend on threads).
    #[arg(long, default_value_t = 64)]
    batch: u64,
    /// Stop without a decision after this many games.
    #[arg(long, default_value_t = 200_000)]
    max_games: u64,
    /// Write the outcome as JSON here.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
}

/// The arguments of `sawah play`.
#[derive(clap::Args, Debug)]
struct PlayArgs {
    /// Rule set name (see `sawah rules`) or rule file path.
    #[arg(long, default_value = "sawah")]
    rules: String,
    /// The side you play (light moves first).
    #[arg(long, value_enum, default_value = "light")]
    side: Side,
    /// Seed for the dice and the computer's choices (default: from the clock; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Senet only: play the game of the day with the day's throws
    /// (DATE as YYYY-MM-DD; today, in UTC, when left out), against medium.
    #[arg(long, value_name = "DATE", num_args = 0..=1, default_missing_value = "today")]
    daily: Option<String>,
    /// The computer: a preset (easy, medium, hard) or a spec such as
    /// expectiminimax:depth=2:noise=0.02 (see docs/agents.md).
    #[arg(long, value_name = "SPEC")]
    opponent: Option<String>,
    /// The solved table for `--opponent perfect` (from `sawah solve --out`).
    #[arg(long, value_name = "PATH")]
    table: Option<String>,
    /// The models folder whose manifest serves easy, medium and hard
    /// (default: ./models, else the source tree's models/).
    #[arg(long, value_name = "DIR")]
    models: Option<PathBuf>,
}

/// The arguments of `sawah match`.
#[derive(clap::Args, Debug)]
struct MatchArgs {
    /// The first agent (spec or preset).
    first: String,
    /// The second agent (spec or preset).
    second: String,
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    rules: String,
    /// Games to play (rounded up to whole pairs).
    #[arg(long, default_value_t = 200)]
    games: u64,
    /// Seed for the dice of every pair (and the agents' choices).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The arguments of `sawah bench-search`.
#[derive(clap::Args, Debug)]
struct BenchSearchArgs {
    /// Rule sets to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "sawah,senet")]
    rules: Vec<String>,
    /// Depth in plies (rolls looked ahead after the move).
    #[arg(long, default_value_t = 3)]
    depth: u8,
    /// Positions (with a roll and at least two legal moves) per rule set.
    #[arg(long, default_value_t = 50)]
    positions: usize,
    /// Seed for the random games the positions come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The arguments of `sawah bench-choose`.
#[derive(clap::Args, Debug)]
struct BenchChooseArgs {
    /// Rule sets (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sawah,babylon,marks-roll-only,ur,masters,masters-5,senet"
    )]
    rules: Vec<String>,
    /// Agents or levels (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "easy,medium,hard")]
    agents: Vec<String>,
    /// Positions per agent.
    #[arg(long, default_value_t = 2000)]
    positions: usize,
    /// Seed for the positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The arguments of `sawah bench-neural`.
#[derive(clap::Args, Debug)]
struct BenchNeuralArgs {
    /// Rule sets to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "ur,senet")]
    rules: Vec<String>,
    /// Hidden layer widths of a network with random weights (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "64")]
    hidden: Vec<usize>,
    /// Measure this model file instead (its rule set must be the one given).
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Seconds per rule set.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Seed for the positions (and random weights).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The arguments of `sawah bench`.
#[derive(clap::Args, Debug)]
struct BenchArgs {
    /// Rule sets to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "sawah,ur,senet")]
    rules: Vec<String>,
    /// Seconds per rule set.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Seed for the dice and choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    if let Err(error) = run(Cli::parse()) {
        eprintln!("error: {}", error_chain(&error));
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    let mut registry = Registry::new();
    for path in &cli.rules_files {
        registry.load_file(path)?;
    }
    match cli.command {
        Command::Play(args) => play_command(&mut registry, args)?,
        Command::BenchProtocol {
            requests,
            models,
            warmup,
        } => {
            let files = bot::BotFiles {
                models,
                ..Default::default()
            };
            let setup = bot::setup(&files, false, Default::default())?;
            let server = bot::native_bot(registry, &setup)?;
            let text = std::fs::read_to_string(&requests)
                .with_context(|| format!("requests {}", requests.display()))?;
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            for (line, micros) in bench::protocol_latency(&server, &lines, warmup)
                .into_iter()
                .enumerate()
            {
                println!("{{\"line\":{line},\"micros\":{micros:.1}}}");
            }
        }
        Command::Bot {
            files,
            untrusted,
            limits,
        } => {
            let limits = limits.limits(untrusted);
            let setup = bot::setup(&files, untrusted, limits)?;
            let server = bot::native_bot(registry, &setup)?;
            let stdin = io::stdin();
            bot::serve(&server, &limits, stdin.lock(), BufWriter::new(io::stdout()))?;
        }
        Command::Serve(args) => sawah_cli::serve::serve(registry, args)?,
        Command::Loadtest(args) => sawah_cli::serve::loadtest(registry, args)?,
        Command::Moves {
            rules,
            position,
            roll,
            json,
        } => describe::moves(&mut registry, rules.as_deref(), &position, roll, json)?,
        Command::Rules { name, json } => {
            describe::describe_rules(&mut registry, name.as_deref(), json)?
        }
        Command::Match(args) => match_command(&mut registry, args)?,
        Command::Train {
            rules,
            config,
            set,
            out,
            resume,
        } => train::train_command(
            &mut registry,
            train::TrainArgs {
                rules,
                config,
                set,
                out,
                resume,
            },
        )?,
        Command::Export { run, out } => train::export_command(&run, &out)?,
        Command::Tournament(args) => tournament_command(&mut registry, args)?,
        Command::Elo {
            dirs,
            out,
            rating:
                RatingArgs {
                    anchor,
                    prior,
                    table,
                },
        } => {
            let anchor_given = anchor.is_some();
            let anchor = anchor.unwrap_or_else(|| "random=0".into());
            tournament::elo(
                &mut registry,
                &dirs,
                &out,
                &anchor,
                anchor_given,
                prior,
                table.as_deref(),
            )?;
        }
        Command::Sprt(args) => sprt_command(&mut registry, args)?,
        Command::Solve {
            rules,
            tolerance,
            verbose,
            out,
            values,
            memory,
            no_extrapolation,
        } => solve::solve(
            &mut registry,
            &rules,
            solve::SolveSettings {
                tolerance,
                memory,
                verbose,
                values,
                extrapolate: !no_extrapolation,
            },
            out.as_deref(),
        )?,
        Command::Quantize { rules, table, out } => {
            solve::quantize(&mut registry, &rules, &table, &out)?
        }
        Command::BenchSearch(args) => bench_search(&mut registry, args)?,
        Command::BenchChoose(args) => bench_choose(&mut registry, args)?,
        Command::BenchNeural(args) => bench_neural(&mut registry, args)?,
        Command::Bench(args) => bench_playouts(&mut registry, args)?,
    }
    Ok(())
}

fn play_command(registry: &mut Registry, args: PlayArgs) -> Result<()> {
    let PlayArgs {
        rules,
        side,
        seed,
        daily,
        opponent,
        table,
        models,
    } = args;
    let game = registry.resolve(&rules)?;
    let models = sawah_cli::models::find(models.as_deref())?;
    let seed = seed.unwrap_or_else(clock_seed);
    let mut options = play::PlayOptions::seeded(side.into(), seed);
    if let Some(date) = daily {
        if !matches!(game, AnyGame::Senet(_)) {
            bail!("--daily is for senet only: the game of the day is a Senet game");
        }
        if opponent.as_deref().is_some_and(|o| o != "medium") {
            bail!("the game of the day is played against medium; leave out --opponent");
        }
        let date = if date == "today" { today_utc() } else { date };
        let throws = DailyThrows::new(&date)?;
        options.rolls = play::Rolls::Daily { date, throws };
    }
    let opponent = opponent.as_deref().unwrap_or("medium");
    let opponent = sawah_cli::models::expand(&models, opponent, game.name());
    options.opponent = AgentSpec::parse(&opponent, game.name()).context("--opponent")?;
    if options.opponent.table.is_none() {
        options.opponent.table = table;
    }
    let stdin = io::stdin();
    with_game!(&game, g => play::play(g, &options, stdin.lock(), io::stdout()))?;
    Ok(())
}

fn match_command(registry: &mut Registry, args: MatchArgs) -> Result<()> {
    let MatchArgs {
        first,
        second,
        rules,
        games,
        seed,
    } = args;
    if games == 0 || games > 100_000_000 {
        bail!("--games must be from 1 to 100000000, not {games}");
    }
    let game = registry.resolve(&rules)?;
    let models = sawah_cli::models::find(None)?;
    let expand = |text: &str| sawah_cli::models::expand(&models, text, game.name());
    let first = AgentSpec::parse(&expand(&first), game.name()).context("first agent")?;
    let second = AgentSpec::parse(&expand(&second), game.name()).context("second agent")?;
    let result = match &game {
        AnyGame::Race(r) => play_match(&**r, &first, &second, games, seed),
        AnyGame::Senet(s) => play_match(&**s, &first, &second, games, seed),
    }?;
    let score = result.score();
    println!(
        "{} vs {} on {}: {} games ({} pairs, paired dice, seed {seed})",
        result.first,
        result.second,
        game.name(),
        result.games(),
        result.pair_scores.len()
    );
    println!(
        "  {} wins {}, {} wins {}, stopped {}; light (first to move) won {}; {:.1} rolls/game",
        result.first,
        result.first_wins,
        result.second,
        result.second_wins,
        result.stopped,
        result.light_wins,
        result.mean_rolls
    );
    println!(
        "  score {:.3} (95% CI {:.3} to {:.3}), Elo difference {:+.0} ({:+.0} to {:+.0})",
        score.mean,
        score.low,
        score.high,
        elo_from_score(score.mean),
        elo_from_score(score.low),
        elo_from_score(score.high)
    );
    Ok(())
}

fn bench_search(registry: &mut Registry, args: BenchSearchArgs) -> Result<()> {
    let BenchSearchArgs {
        rules,
        depth,
        positions,
        seed,
    } = args;
    if depth > 4 {
        bail!("--depth is in plies and goes up to 4, not {depth}");
    }
    if positions == 0 {
        bail!("--positions must be at least 1");
    }
    println!("search at depth {depth} (plies) on {positions} positions per rule set, seed {seed}");
    for name in rules {
        let game = registry.resolve(&name)?;
        let report = with_game!(&game, g => bench::search(g, depth, positions, seed));
        println!("{report}");
    }
    Ok(())
}

fn bench_choose(registry: &mut Registry, args: BenchChooseArgs) -> Result<()> {
    let BenchChooseArgs {
        rules,
        agents,
        positions,
        seed,
    } = args;
    if positions == 0 {
        bail!("--positions must be at least 1");
    }
    let models = sawah_cli::models::find(None)?;
    println!(
        "choose latency, one thread, {positions} positions with a choice per agent, seed {seed}"
    );
    for name in rules {
        let game = registry.resolve(&name)?;
        for text in &agents {
            let expanded = sawah_cli::models::expand(&models, text, game.name());
            let spec = AgentSpec::parse(&expanded, game.name())
                .with_context(|| format!("agent {text}"))?;
            let result = with_game!(&game, g => {
                let mut agent = spec.build(g)?;
                bench::choose_latency(g, agent.as_mut(), positions, seed)
            });
            println!(
                "{:<16} {:<8} p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  ({spec})",
                game.name(),
                text,
                result.quantile(0.5),
                result.quantile(0.99),
                result.quantile(1.0)
            );
        }
    }
    Ok(())
}

fn bench_neural(registry: &mut Registry, args: BenchNeuralArgs) -> Result<()> {
    let BenchNeuralArgs {
        rules,
        hidden,
        model,
        seconds,
        seed,
    } = args;
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--seconds must be a positive number, not {seconds}");
    }
    if hidden.is_empty() || hidden.iter().any(|&w| w == 0 || w > 1024) {
        bail!("--hidden: widths from 1 to 1024");
    }
    println!("neural evaluation, batch size 1, one thread, {seconds} s per rule set, seed {seed}");
    for name in rules {
        let game = registry.resolve(&name)?;
        let result = with_game!(&game, g => {
            let net = match &model {
                Some(path) => sawah_agents::neural::NeuralNet::load(path, g)?,
                None => sawah_agents::neural::NeuralNet::with_random_weights(g, &hidden, seed)?,
            };
            bench::neural(g, &net, seed, Duration::from_secs_f64(seconds))
        });
        println!(
            "{:<16} layers {:?} ({} parameters): {:.2} M evaluations/s ({:.0} ns each)",
            result.rules,
            result.widths,
            result.parameters,
            result.evaluations as f64 / result.elapsed.as_secs_f64() / 1e6,
            result.elapsed.as_secs_f64() * 1e9 / result.evaluations as f64
        );
    }
    Ok(())
}

fn bench_playouts(registry: &mut Registry, args: BenchArgs) -> Result<()> {
    let BenchArgs {
        rules,
        seconds,
        seed,
    } = args;
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--seconds must be a positive number, not {seconds}");
    }
    println!("random playouts, one thread, {seconds} s per rule set, seed {seed}");
    for name in rules {
        let game = registry.resolve(&name)?;
        let duration = Duration::from_secs_f64(seconds);
        let result = with_game!(&game, g => bench::random_playouts(g, seed, duration));
        println!(
            "{:<16} {:>6.2} M moves/s  {:>8} games  {:>6.1} moves/game  rolls/game: mean {:.1}, min {}, median {}, p90 {}, p99 {}, max {}",
            result.rules,
            result.moves_per_second() / 1e6,
            result.games,
            result.moves as f64 / result.games as f64,
            result.plies as f64 / result.games as f64,
            result.length_quantile(0.0),
            result.length_quantile(0.5),
            result.length_quantile(0.9),
            result.length_quantile(0.99),
            result.length_quantile(1.0),
        );
    }
    Ok(())
}

fn tournament_command(registry: &mut Registry, args: TournamentCommandArgs) -> Result<()> {
    let TournamentCommandArgs {
        rules,
        agents,
        games,
        format,
        seed,
        out,
        shard,
        rating: RatingArgs {
            anchor,
            prior,
            table,
        },
    } = args;
    let format = format
        .parse()
        .map_err(anyhow::Error::msg)
        .context("--format")?;
    let shard = shard
        .parse()
        .map_err(anyhow::Error::msg)
        .context("--shard")?;
    let anchor_given = anchor.is_some();
    let args = TournamentArgs {
        rules,
        agents,
        games,
        format,
        seed,
        out,
        shard,
        anchor: anchor.unwrap_or_else(|| "random=0".into()),
        prior,
        table,
    };
    tournament::tournament(registry, args, anchor_given)?;
    Ok(())
}

fn sprt_command(registry: &mut Registry, args: SprtCommandArgs) -> Result<()> {
    let SprtCommandArgs {
        rules,
        new,
        base,
        elo0,
        elo1,
        alpha,
        beta,
        model,
        seed,
        batch,
        max_games,
        out,
    } = args;
    let args = SprtArgs {
        rules,
        new,
        base,
        params: sawah_eval::sprt::SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        },
        seed,
        batch,
        max_games,
        out,
    };
    tournament::sprt_command(registry, args)?;
    Ok(())
}

/// The error and its causes, leaving out a cause whose text the previous
/// message already includes (our error messages embed their details).
fn error_chain(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let message = cause.to_string();
        if !text.contains(&message) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&message);
        }
    }
    text
}

/// Today's date in UTC, the key of Senet's game of the day.
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    daily::date_of_unix_seconds(secs)
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
