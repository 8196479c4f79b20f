//! `sawah`: play, serve the bot protocol, list moves, describe rule sets,
//! benchmark. This file parses the command line and dispatches; each
//! subcommand's arguments and start-up live in `sawah_cli::commands`.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use sawah_cli::commands::train;
use sawah_cli::commands::{
    bench, bot, check_bot, curve, describe, export_games, hint, play, serve,
};
use sawah_engine::registry::Registry;
use sawah_workflows::{levels, matches, puzzles, review, solve, tournament};
use std::path::PathBuf;

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

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a game in the terminal against the computer.
    Play(play::PlayArgs),
    /// Play two agents against each other with paired dice (each dice
    /// sequence twice, seats swapped) and report the first agent's score.
    Match(matches::MatchArgs),
    /// Play a tournament: every pairing (or the first agent against each
    /// other) with paired dice, in parallel; every game appended to
    /// DIR/results.jsonl (rerun the same command to resume), then an Elo
    /// table written to DIR as elo.md, elo.csv, crosstable.csv, elo.json and elo.svg.
    Tournament(tournament::TournamentCommandArgs),
    /// Merge the results of tournament folders (shards, reruns, machines)
    /// into one Elo table; games present in several folders count once.
    Elo(tournament::EloArgs),
    /// Sequential probability ratio test: play paired games of a new agent
    /// against a base one until the evidence says which hypothesis holds
    /// (pentanomial model on game pairs).
    Sprt(tournament::SprtCommandArgs),
    /// Train a neural value network: self-play TD(lambda), or distillation
    /// from a solved table (see docs/training.md). Progress, TensorBoard
    /// logs (FOLDER/tb), checkpoints and evaluations go to the run folder.
    Train(sawah_cli::commands::train::TrainArgs),
    /// Play one shard's share of the rounds of runs trained with
    /// `--shards N` (a run folder, or a levels build's work folder), on
    /// this machine or another sharing the folder, until they finish.
    TrainShard(sawah_cli::commands::train::TrainShardArgs),
    /// Draw training runs' learning curves (Elo against one fixed opponent
    /// by training games, from each run's evals.jsonl) on one chart (SVG),
    /// with a table per run and where each curve flattens.
    Curve(curve::CurveArgs),
    /// Write a run's network as a model file (SafeTensors) with its manifest
    /// entry (FILE.json), for models/ and `neural:model=FILE`.
    Export(sawah_cli::commands::train::ExportArgs),
    /// Solve a race rule set exactly: every position's win probability for
    /// the side to move. Prints layers, sweeps, time and the start's value.
    Solve(solve::SolveArgs),
    /// Write a smaller copy of a solved table: values quantised to u16,
    /// each within 7.6e-6 of the f32 table's (for downloads).
    Quantize(solve::QuantizeArgs),
    /// Measure search: nodes and speed of plain expectiminimax and Star2 on
    /// positions from random games.
    BenchSearch(bench::BenchSearchArgs),
    /// Measure neural evaluation speed: positions from random games
    /// evaluated one at a time (batch size 1) on one core.
    BenchNeural(bench::BenchNeuralArgs),
    /// Measure how long the levels (or any agents) take to choose a move:
    /// p50, p99 and max over positions from random games, one thread.
    BenchChoose(bench::BenchChooseArgs),
    /// Time the bot protocol in this process: answer every request line of
    /// a file (as `sawah bot` would, with the shipped models loaded once)
    /// and print one line per request, {"line":N,"micros":T}, for comparing
    /// with other front doors (the browser package's benchmark uses it).
    BenchProtocol(bench::BenchProtocolArgs),
    /// Serve the JSON-lines bot protocol on stdin/stdout until end of input.
    Bot(bot::BotArgs),
    /// Serve the opponents over HTTP (the bot protocol, resource routes,
    /// health, metrics, OpenAPI) until SIGTERM or SIGINT; see docs/server.md.
    Serve(serve::ServeArgs),
    /// Load-test a `sawah serve`: `choose` requests from many connections,
    /// with throughput, latency quantiles, errors and server memory.
    Loadtest(serve::LoadtestArgs),
    /// List the legal moves for a position and roll, with the resulting positions.
    Moves(describe::MovesArgs),
    /// Describe a rule set, or list them all when none is named.
    Rules(describe::RulesArgs),
    /// Measure random-playout speed (roll, generate, pick, apply) on one core.
    Bench(bench::BenchArgs),
    /// Review a game (or every game of a tournament): every move's loss
    /// and class against perfect play or a strong agent, the luck of every
    /// roll, each player's totals and strength.
    #[command(mut_arg("tables", |arg| arg.help(
        "A solved table, RULES=FILE or FILE: the reference is then perfect play from it (exact) for its rule set; repeat for more rule sets"
    )))]
    Review(review::ReviewArgs),
    /// Write a tournament's games out one file per game: RGN, RoyalUr's
    /// game notation (race rule sets), or JSON game records.
    ExportGames(export_games::ExportGamesArgs),
    /// Rank every legal move for a roll, with what each does (captures,
    /// rosettes, safety) and the chance it leaves the opponent to hit.
    #[command(mut_arg("tables", |arg| arg.help(
        "A solved table, RULES=FILE or FILE: the moves are then ranked by perfect play from it (exact)"
    )))]
    Hint(hint::HintArgs),
    /// Make, check and measure puzzle sets: positions where one move is
    /// exactly best by a clear margin and a natural move is wrong
    /// (docs/puzzles.md).
    Puzzles(puzzles::PuzzlesArgs),
    /// Play puzzles in the terminal: the puzzle of the day, one by id, or
    /// a series near a rating.
    Puzzle(puzzles::PuzzleArgs),
    /// Make a rule set's opponents: `sawah levels build --rules NAME_OR_FILE
    /// --out DIR` solves, distils, searches and calibrates easy, medium,
    /// hard and the strength dial, mines puzzles and writes a report, into
    /// a models folder every front door loads (docs/training.md).
    Levels(levels::LevelsArgs),
    /// Check an outside bot before a tournament (docs/bots.md): positions
    /// from random games of each rule set, edge cases first; legal,
    /// illegal and malformed answers, crashes and latency; pass or fail.
    CheckBot(check_bot::CheckBotArgs),
}

fn main() {
    let matches = Cli::command().get_matches();
    let models = ModelsArgument::of(&matches);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    if !matches!(cli.command, Command::Serve(_) | Command::Loadtest(_)) {
        end_quietly_on_a_closed_pipe();
    }
    if let Err(error) = run(cli, &models) {
        let text = format!("error: {}", error_chain(&error));
        // Wrapped to a terminal's width; whole in a log or a pipe.
        match sawah_workflows::columns::stderr_width() {
            Some(width) => eprintln!(
                "{}",
                sawah_workflows::columns::wrap_to(&text, width, "", "  ")
            ),
            None => eprintln!("{text}"),
        }
        std::process::exit(1);
    }
}

fn run(cli: Cli, models: &ModelsArgument) -> Result<()> {
    let mut registry = Registry::new();
    for path in &cli.rules_files {
        registry.load_file(path)?;
    }
    if let ModelsArgument::Taken(dir) = models {
        // The rule sets of the folder's rule files are known by name, as
        // if each were given with --rules-file.
        sawah_workflows::models::register_rule_files(&mut registry, dir.as_deref())?;
    }
    let registry = &mut registry;
    match cli.command {
        Command::Play(args) => play::run(registry, args),
        Command::Match(args) => matches::run(registry, args),
        Command::Tournament(args) => {
            tournament::tournament_command(registry, args, &command_line())
        }
        Command::Elo(args) => tournament::elo_command(registry, args, &command_line()),
        Command::Sprt(args) => tournament::sprt_command(registry, args),
        Command::Train(args) => train::train_command(registry, args),
        Command::TrainShard(args) => train::train_shard_command(registry, args),
        Command::Curve(args) => curve::run(args),
        Command::Export(args) => train::export_command(&args.run, &args.out),
        Command::Solve(args) => solve::solve_command(registry, args),
        Command::Quantize(args) => solve::quantize_command(registry, args),
        Command::BenchSearch(args) => bench::bench_search(registry, args),
        Command::BenchNeural(args) => bench::bench_neural(registry, args),
        Command::BenchChoose(args) => bench::bench_choose(registry, args),
        Command::BenchProtocol(args) => bench::bench_protocol(registry.clone(), args),
        Command::Bot(args) => bot::bot_command(registry.clone(), args),
        Command::Serve(args) => serve::serve(registry.clone(), args),
        Command::Loadtest(args) => serve::loadtest(registry.clone(), args),
        Command::Moves(args) => describe::moves_command(registry, args),
        Command::Rules(args) if args.report => describe::report_command(registry, &args),
        Command::Rules(args) => describe::rules_command(registry, args),
        Command::Bench(args) => bench::bench_playouts(registry, args),
        Command::Review(args) => review::run(registry, args),
        Command::ExportGames(args) => export_games::run(registry, args),
        Command::Hint(args) => hint::run(registry, args),
        Command::Puzzles(args) => puzzles::run(registry, args),
        Command::Puzzle(args) => puzzles::puzzle_command(registry, args),
        Command::CheckBot(args) => check_bot::run(registry, args),
        Command::Levels(args) => levels::run(registry, args, &command_line()),
    }
}

/// The command line as given, for records that name the command (each
/// argument quoted where a shell would need it).
/// The command as it was run, quoted for a POSIX shell, its program
/// written `sawah` (wherever the binary lives), for records that say how to
/// run it again.
fn command_line() -> String {
    std::env::args()
        .enumerate()
        .map(|(i, arg)| if i == 0 { "sawah".to_string() } else { arg })
        .map(|arg| {
            let plain = !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                arg
            } else {
                format!("'{}'", arg.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the command given takes a models folder (`--models DIR`), and
/// which one it was given.
enum ModelsArgument {
    /// The command has no `--models`.
    NotTaken,
    /// The command has `--models`: the folder given, if any.
    Taken(Option<PathBuf>),
}

impl ModelsArgument {
    /// Looks for a `models` argument in the innermost subcommand given.
    fn of(matches: &clap::ArgMatches) -> ModelsArgument {
        let mut matches = matches;
        while let Some((_, inner)) = matches.subcommand() {
            matches = inner;
        }
        match matches.try_get_one::<PathBuf>("models") {
            Ok(dir) => ModelsArgument::Taken(dir.cloned()),
            Err(_) => ModelsArgument::NotTaken,
        }
    }
}

/// Lets a closed standard output end the command as it ends other Unix
/// tools (`sawah rules | head -1`): by SIGPIPE, quietly. Rust programs
/// ignore SIGPIPE, so a write to a closed pipe fails instead, and
/// `println!` panics. The server and the load tool write to sockets, where
/// a closed connection is an error to handle, and keep ignoring it.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action, at start-up, before any
    // thread is spawned.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The error and its causes, leaving out a cause whose text the previous
/// message already includes (our error messages embed their details).
fn error_chain(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        // Messages may quote files from elsewhere (a parser's error, a name
        // read from a manifest): no escape reaches the terminal, and no
        // message is longer than a few screens.
        let message = sawah_engine::text::printable_lines(&cause.to_string(), 1_000, 40);
        if !text.contains(&message) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&message);
        }
    }
    text
}
