//! `sawah puzzles generate|check|rate-check`: puzzle sets mined from exact
//! values (`sawah_eval::study::puzzles`), checked against a table independently of
//! the generator, and their ratings measured on fresh seeds; and
//! `sawah puzzle`: puzzles in the terminal, through the protocol's
//! `puzzle` and `solve_puzzle`.

use crate::bots::{BotFiles, native_bot, setup};
use crate::render::{Render, wrap};
use anyhow::{Context, Result, bail};
use sawah_agents::endgame::EndgameTable;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::manifest::Models;
use sawah_agents::puzzle::{
    PUZZLE_FORMAT, PUZZLE_VERSION, Puzzle, PuzzleHeader, PuzzleSet, RatingBound, margin_of,
};
use sawah_agents::table::Table;
use sawah_agents::{AgentSpec, MemoryAssets};
use sawah_engine::registry::Registry;
use sawah_engine::senet::daily;
use sawah_engine::{AnyGame, Codec, with_game};
use sawah_eval::study::puzzles::{self, Named, PuzzleConfig, RatingConfig};
use sawah_protocol::messages::{
    Answer, PuzzleChoice, PuzzleQuestion, PuzzleRequest, Request, Response, SolvePuzzleAnswer,
    SolvePuzzleRequest,
};
use sawah_protocol::native::Limits;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The arguments of `sawah puzzles`.
#[derive(clap::Args, Debug)]
pub struct PuzzlesArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: PuzzlesAction,
}

/// `sawah puzzles` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum PuzzlesAction {
    /// Mine puzzles from games between the levels, valued by a solved
    /// table (Senet: its endgame table), rated on the strength dial.
    Generate(GenerateArgs),
    /// Recompute every puzzle's values, answer and margin from a table,
    /// independently of the generator, and refuse the file on any
    /// difference.
    Check(CheckArgs),
    /// Play the strength dial at each puzzle's rating, on seeds the rating
    /// did not use, and report how often it finds the answer (about half
    /// the time when ratings hold up).
    RateCheck(RateCheckArgs),
}

/// The arguments of `sawah puzzles generate`.
#[derive(clap::Args, Debug, Clone)]
pub struct GenerateArgs {
    /// The rule set.
    #[arg(long)]
    pub rules: String,
    /// The solved table of the rule set (Senet: an endgame table from
    /// `sawah solve --rules senet --pieces K`).
    #[arg(long, value_name = "FILE")]
    pub table: PathBuf,
    /// How many puzzles to keep.
    #[arg(long, default_value_t = 200)]
    pub count: usize,
    /// The seed of the games mined (dice and agents).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The least margin, in percentage points of win probability, by which
    /// the best move beats every move reaching another position.
    #[arg(long, value_name = "PP", default_value_t = puzzles::DEFAULT_MARGIN_PP)]
    pub margin: f64,
    /// The agents whose games are mined, comma-separated.
    #[arg(long, default_value = "easy,medium,hard")]
    pub players: String,
    /// The agents whose wrong choice makes a position a puzzle.
    #[arg(long, default_value = "medium,easy,heuristic")]
    pub natural: String,
    /// Noise seeds per strength measured for a rating.
    #[arg(long, default_value_t = 64)]
    pub rating_seeds: u64,
    /// The most games played looking for the puzzles.
    #[arg(long, default_value_t = 200_000)]
    pub max_games: u64,
    /// The models folder (default: ./models, else the embedded models).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Where the puzzle set is written (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// An earlier set of the rule set whose puzzles stay, first and as they
    /// are (ids, ratings), each checked against --table with --margin
    /// first; new ones are mined until the set holds --count. A set grows
    /// this way when a larger table comes (Senet's four-piece endgames
    /// beside its three-piece puzzles) without losing the ids players know.
    #[arg(long, value_name = "FILE")]
    pub keep: Option<PathBuf>,
}

/// The arguments of `sawah puzzles check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The puzzle file.
    pub file: PathBuf,
    /// The solved table (Senet: the endgame table) to recompute from.
    #[arg(long, value_name = "FILE")]
    pub table: PathBuf,
}

/// The arguments of `sawah puzzles rate-check`.
#[derive(clap::Args, Debug)]
pub struct RateCheckArgs {
    /// The puzzle file.
    pub file: PathBuf,
    /// Seeds per puzzle, from `--first-seed` (the ratings used 1 to 64).
    #[arg(long, default_value_t = 100)]
    pub seeds: u64,
    /// The first seed played.
    #[arg(long, default_value_t = 1_000_000)]
    pub first_seed: u64,
    /// The models folder (default: ./models, else the embedded models).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

/// Runs `sawah puzzles`.
pub fn run(registry: &mut Registry, args: PuzzlesArgs) -> Result<()> {
    match args.action {
        PuzzlesAction::Generate(args) => generate(registry, args),
        PuzzlesAction::Check(args) => check(registry, args),
        PuzzlesAction::RateCheck(args) => rate_check(registry, args),
    }
}

/// The models and an in-memory store holding their networks by name.
fn models_and_assets(dir: Option<&Path>) -> Result<(Models, MemoryAssets)> {
    let models = crate::models::find(dir)?.context("no models")?;
    let mut assets = MemoryAssets::default();
    models.add_to(&mut assets);
    Ok((models, assets))
}

/// Agents named on the command line (levels through the models).
fn named(models: &Models, list: &str, rules: &str) -> Result<Vec<Named>> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            let spec = AgentSpec::parse_with(name, rules, models)
                .with_context(|| format!("agent {name:?}"))?;
            Ok(Named {
                name: name.to_string(),
                spec,
            })
        })
        .collect()
}

/// How ratings are measured for `rules`: its dial, hard and hard's Elo.
fn rating_config(models: &Models, rules: &str, seeds: u64) -> Result<RatingConfig> {
    let dial = models
        .manifest()
        .dial
        .iter()
        .find(|d| d.rules == rules)
        .cloned()
        .with_context(|| {
            format!(
                "the models' manifest has no strength dial for {rules}, which rates puzzles; `sawah levels build --rules {rules} --out DIR` makes one (then give --models DIR)"
            )
        })?;
    let hard = named(models, "hard", rules)?.remove(0);
    let hard_elo = models
        .level(rules, "hard")
        .and_then(|l| l.measured.elo)
        .with_context(|| format!("the manifest gives no Elo for hard on {rules}"))?;
    Ok(RatingConfig {
        dial,
        hard,
        hard_elo,
        seeds,
    })
}

fn generate(registry: &mut Registry, args: GenerateArgs) -> Result<()> {
    let made = generate_set(registry, &args, false)?;
    let ratings: Vec<f64> = made.set.puzzles.iter().map(|p| p.rating).collect();
    println!(
        "{} puzzles of {} from {} games ({} decisions with a choice) in {:.1} s; ratings {:.0} to {:.0} (median {:.0}); written to {}",
        made.set.puzzles.len(),
        made.set.header.rules,
        made.games,
        made.decisions,
        made.seconds,
        ratings.iter().copied().fold(f64::INFINITY, f64::min),
        ratings.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        median(&ratings),
        args.out.display()
    );
    Ok(())
}

/// A puzzle set as made: the set, the games it took, and the time.
pub struct Generated {
    /// The set written.
    pub set: PuzzleSet,
    /// Games played to find it.
    pub games: u64,
    /// Decisions with a choice seen.
    pub decisions: u64,
    /// Seconds the mining took.
    pub seconds: f64,
}

/// Mines, rates and writes the puzzle set `args` asks for (`quiet`: no
/// line but the progress bar).
pub fn generate_set(
    registry: &mut Registry,
    args: &GenerateArgs,
    quiet: bool,
) -> Result<Generated> {
    if !(args.margin.is_finite() && args.margin > 0.0) {
        bail!("--margin must be a positive number of percentage points");
    }
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    crate::output_path::check_output(&args.out)
        .with_context(|| format!("--out {}", args.out.display()))?;
    let game = registry.resolve(&args.rules)?;
    let rules = game.name().to_string();
    let (models, assets) = models_and_assets(args.models.as_deref())?;
    let config = PuzzleConfig {
        count: args.count,
        seed: args.seed,
        margin_pp: args.margin,
        players: named(&models, &args.players, &rules).context("--players")?,
        natural: named(&models, &args.natural, &rules).context("--natural")?,
        max_games: args.max_games,
    };
    if config.players.is_empty() || config.natural.is_empty() {
        bail!("--players and --natural each need at least one agent");
    }
    let rating = rating_config(&models, &rules, args.rating_seeds)?;
    let exact = open_exact(&game, &args.table)?;
    let kept = kept_puzzles(registry, args, &game, &exact)?;
    let wanted = args.count - kept.len();
    let bar = crate::progress::bar(
        args.count as u64,
        "{elapsed_precise} [{bar:40}] {pos}/{len} puzzles (ETA {eta}), {msg}",
    );
    let progress = |games: u64, found: usize| {
        bar.set_position(found.min(args.count) as u64);
        bar.set_message(format!("{games} games"));
    };
    let started = std::time::Instant::now();
    let mined = match (&game, &exact) {
        (AnyGame::Race(g), Exact::Race(t)) => puzzles::mine(&**g, t, &assets, &config, &progress)?,
        (AnyGame::Senet(g), Exact::Senet(t)) => {
            puzzles::mine(&**g, t, &assets, &config, &progress)?
        }
        _ => bail!("the table is not of the puzzles' game family"),
    };
    let reference = reference_of(&exact, &args.table);
    bar.finish_and_clear();
    let mined_in = started.elapsed();
    // Mined to the whole count, so that after the kept ones' ids are left
    // out there are still enough.
    let mut found: Vec<Puzzle> = mined
        .puzzles
        .into_iter()
        .filter(|p| kept.iter().all(|k| k.id != p.id))
        .take(wanted)
        .collect();
    if found.len() < wanted && !quiet {
        eprintln!(
            "only {} new puzzles in {} games (--max-games); writing those",
            found.len(),
            mined.games
        );
    }
    with_game!(&game, g => puzzles::rate(g, &assets, &rating, &mut found))
        .map_err(anyhow::Error::msg)?;
    let found: Vec<Puzzle> = kept.into_iter().chain(found).collect();
    let set = PuzzleSet {
        header: PuzzleHeader {
            format: PUZZLE_FORMAT.into(),
            format_version: PUZZLE_VERSION,
            rules: rules.clone(),
            margin_pp: args.margin,
            reference,
            seed: args.seed,
            players: config.players.iter().map(|p| p.name.clone()).collect(),
            natural: config.natural.iter().map(|p| p.name.clone()).collect(),
            rating: format!(
                "Elo on {rules}'s scale (models/ELO.md) at which the strength dial ({}) finds the answer with half of seeds 1 to {}; hard's Elo, {}, when the noiseless dial does not",
                rating.dial.spec, rating.seeds, rating.hard_elo
            ),
            generator: format!("sawah {}", env!("CARGO_PKG_VERSION")),
        },
        puzzles: found,
    };
    let text = set.to_jsonl();
    // What is written must read back: the same checks as every reader.
    with_game!(&game, g => PuzzleSet::parse(g, text.as_bytes(), "the new set"))?;
    sawah_agents::files::write_atomically(&args.out, text.as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    Ok(Generated {
        set,
        games: mined.games,
        decisions: mined.decisions,
        seconds: mined_in.as_secs_f64(),
    })
}

/// The puzzles of `--keep`, each confirmed against `--table` with
/// `--margin`; none without `--keep`.
fn kept_puzzles(
    registry: &Registry,
    args: &GenerateArgs,
    game: &AnyGame,
    exact: &Exact,
) -> Result<Vec<Puzzle>> {
    let Some(path) = &args.keep else {
        return Ok(Vec::new());
    };
    let shown = format!("--keep {}", path.display());
    let (kept_game, set) = read_set(registry, path).context(shown.clone())?;
    if kept_game.name() != game.name() {
        bail!(
            "{shown}: a set of {}, not of {}",
            kept_game.name(),
            game.name()
        );
    }
    if set.puzzles.len() >= args.count {
        bail!(
            "{shown} holds {} puzzles: --count must be larger to add any",
            set.puzzles.len()
        );
    }
    for puzzle in &set.puzzles {
        recheck_any(game, exact, puzzle, args.margin)
            .with_context(|| format!("{shown}: puzzle {}", puzzle.id))?;
    }
    Ok(set.puzzles)
}

/// How a puzzle set's header names the table at `path`.
fn reference_of(exact: &Exact, path: &Path) -> String {
    match exact {
        Exact::Race(table) if table.is_whole() => format!(
            "perfect play by the solved table {} ({} positions)",
            file_name(path),
            table.info().states
        ),
        Exact::Race(table) => format!(
            "perfect play by the partial table {} ({}, {} positions)",
            file_name(path),
            table.layers(),
            table.info().states
        ),
        Exact::Senet(table) => format!(
            "the Senet endgame table {} (at most {} pieces a side on the board)",
            file_name(path),
            table.pieces()
        ),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Reads a puzzle file of a rule set named in its header.
fn read_set(registry: &Registry, path: &Path) -> Result<(AnyGame, PuzzleSet)> {
    let bytes = sawah_agents::neural::model::read_bounded(
        path,
        sawah_agents::puzzle::MAX_PUZZLE_FILE_BYTES,
    )
    .with_context(|| path.display().to_string())?;
    /// As much of a puzzle file's header as says its rule set.
    #[derive(serde::Deserialize)]
    struct RulesOf {
        rules: Option<String>,
    }
    let first: RulesOf =
        serde_json::from_slice(bytes.split(|&b| b == b'\n').next().unwrap_or_default())
            .with_context(|| {
                format!("{}: the first line is not a puzzle header", path.display())
            })?;
    let rules = first
        .rules
        .with_context(|| format!("{}: the header names no rule set", path.display()))?;
    let game = registry.get(&rules)?;
    let shown = path.display().to_string();
    let set = with_game!(&game, g => PuzzleSet::parse(g, &bytes, &shown))?;
    Ok((game, set))
}

/// A position's exact value for the side to move, by a table of either kind.
enum Exact {
    Race(Arc<Table>),
    Senet(Arc<EndgameTable>),
}

/// The table at `path`, opened once for `game`'s family.
fn open_exact(game: &AnyGame, path: &Path) -> Result<Exact> {
    let shown = path.display().to_string();
    Ok(match game {
        AnyGame::Race(race) => {
            Exact::Race(Arc::new(Table::open_partial(path, race).context(shown)?))
        }
        AnyGame::Senet(_) => Exact::Senet(Arc::new(EndgameTable::open(path).context(shown)?)),
    })
}

/// [`recheck`] with a table of either family.
fn recheck_any(game: &AnyGame, exact: &Exact, puzzle: &Puzzle, margin_pp: f64) -> Result<f64> {
    match (game, exact) {
        (AnyGame::Race(g), Exact::Race(t)) => recheck(&**g, puzzle, margin_pp, |p| t.get(p)),
        (AnyGame::Senet(g), Exact::Senet(t)) => recheck(&**g, puzzle, margin_pp, |p| t.value(p)),
        _ => bail!("the table is not of the puzzles' game family"),
    }
}

fn check(registry: &mut Registry, args: CheckArgs) -> Result<()> {
    let (game, set) = read_set(registry, &args.file)?;
    let exact = open_exact(&game, &args.table)?;
    let mut largest_difference: f64 = 0.0;
    for puzzle in &set.puzzles {
        let difference = recheck_any(&game, &exact, puzzle, set.header.margin_pp)
            .with_context(|| format!("{}: puzzle {}", args.file.display(), puzzle.id))?;
        largest_difference = largest_difference.max(difference);
    }
    println!(
        "{}: all {} puzzles checked against {}: every answer is the table's best move by at least {} pp (largest value difference {largest_difference:.1e})",
        args.file.display(),
        set.puzzles.len(),
        args.table.display(),
        set.header.margin_pp
    );
    Ok(())
}

/// Recomputes one puzzle from `value` (the side to move's exact win
/// probability, where the table covers the position), without the
/// generator's code: every move's value, the best move and the margin.
/// Returns the largest difference from the file's values.
fn recheck<G: Codec>(
    game: &G,
    puzzle: &Puzzle,
    margin_pp: f64,
    value: impl Fn(&G::Position) -> Option<f64>,
) -> Result<f64> {
    let (position, moves) = puzzle.replay(game).map_err(anyhow::Error::msg)?;
    let mover = game.turn(&position);
    let mut values = Vec::with_capacity(moves.len());
    for &mv in &moves {
        let after = game.apply(&position, mv).position;
        let v = match game.winner(&after) {
            Some(winner) => f64::from(u8::from(winner == mover)),
            None => {
                let v =
                    value(&after).context("the table does not cover a position after a move")?;
                if game.turn(&after) == mover {
                    v
                } else {
                    1.0 - v
                }
            }
        };
        values.push(v);
    }
    let best = (0..values.len())
        .max_by(|&a, &b| values[a].total_cmp(&values[b]))
        .context("no moves")?;
    let answer = puzzle.index_of(&puzzle.answer).context("no answer")?;
    if !sawah_agents::puzzle::same_result(game, &position, moves[best], moves[answer]) {
        bail!(
            "the table's best move is {}, not the answer {}",
            game.move_to_json(moves[best]),
            puzzle.answer
        );
    }
    let margin = margin_of(game, &position, &moves, &values, best).context("no second move")?;
    if margin < margin_pp {
        bail!("the table's margin is {margin:.3} pp, below {margin_pp} pp");
    }
    let difference = values
        .iter()
        .zip(&puzzle.moves)
        .map(|(v, m)| (v - m.value).abs())
        .fold(0.0, f64::max);
    if difference > 1e-6 {
        bail!("a value differs from the table's by {difference:.2e}");
    }
    Ok(difference)
}

fn rate_check(registry: &mut Registry, args: RateCheckArgs) -> Result<()> {
    let (game, set) = read_set(registry, &args.file)?;
    let rules = game.name().to_string();
    let (models, assets) = models_and_assets(args.models.as_deref())?;
    let seeds = args.first_seed..args.first_seed.saturating_add(args.seeds);
    // Every puzzle rated inside the dial's range, played by `elo=R`
    // exactly as a player asks for it (the dial, handing over to hard at
    // the top).
    let mut rows: Vec<(f64, f64)> = Vec::new();
    for puzzle in set.puzzles.iter().filter(|p| p.rating_bound.is_none()) {
        let spec = models
            .dial(&rules, puzzle.rating)?
            .with_context(|| format!("{rules} has no strength dial"))?;
        let share =
            with_game!(&game, g => puzzles::solve_rate(g, &assets, &spec, puzzle, seeds.clone()))
                .map_err(anyhow::Error::msg)?;
        rows.push((puzzle.rating, share));
    }
    if rows.is_empty() {
        bail!(
            "no puzzle of {} is rated inside the dial's range",
            args.file.display()
        );
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mean = |rows: &[(f64, f64)]| rows.iter().map(|r| r.1).sum::<f64>() / rows.len() as f64;
    println!(
        "{}: the dial at each puzzle's rating, seeds {} to {}: finds the answer {:.1}% of the time over {} puzzles ({} rated at a bound of the dial left out)",
        args.file.display(),
        seeds.start,
        seeds.end - 1,
        100.0 * mean(&rows),
        rows.len(),
        set.puzzles.len() - rows.len()
    );
    println!("\n| ratings | puzzles | found |\n|---|---:|---:|");
    let quarter = rows.len().div_ceil(4);
    for chunk in rows.chunks(quarter.max(1)) {
        println!(
            "| {:.0} to {:.0} | {} | {:.1}% |",
            chunk[0].0,
            chunk[chunk.len() - 1].0,
            chunk.len(),
            100.0 * mean(chunk)
        );
    }
    Ok(())
}

/// The arguments of `sawah puzzle`.
#[derive(clap::Args, Debug)]
pub struct PuzzleArgs {
    /// The rule set.
    #[arg(long, default_value = "ur")]
    pub rules: String,
    /// Puzzles near this rating (Elo on the rule set's scale), one after
    /// another.
    #[arg(long, conflicts_with_all = ["daily", "id"])]
    pub rating: Option<f64>,
    /// The puzzle of the day (today in UTC, or the date given).
    #[arg(long, value_name = "DATE", num_args = 0..=1, default_missing_value = "today", conflicts_with = "id")]
    pub daily: Option<String>,
    /// One puzzle by its id.
    #[arg(long)]
    pub id: Option<String>,
    /// The models folder whose manifest lists the puzzle sets (default:
    /// ./models, else the models embedded in the binary).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Print the protocol's answers as JSON lines instead of playing
    /// (the puzzle, then the answer to each move given on standard input).
    #[arg(long)]
    pub json: bool,
}

/// Plays puzzles in the terminal.
pub fn puzzle_command(registry: &mut Registry, args: PuzzleArgs) -> Result<()> {
    if let Some(rating) = args.rating
        && !(rating.is_finite() && rating.abs() <= sawah_protocol::MAX_RATING)
    {
        anyhow::bail!(
            "--rating {rating}: give an Elo on the rule set's scale, from -{0} to {0}",
            sawah_protocol::MAX_RATING
        );
    }
    let game = registry.resolve(&args.rules)?;
    let files = BotFiles {
        tables: Vec::new(),
        models: args.models.clone(),
    };
    let bot = native_bot(registry.clone(), &setup(&files, false, Limits::NONE)?)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout();
    let rules = game.name().to_string();
    let series = args.rating.is_some() || (args.daily.is_none() && args.id.is_none());
    let mut solved = 0;
    for seed in 0.. {
        let choice = match (&args.daily, &args.id, args.rating) {
            (Some(date), _, _) => PuzzleChoice::Date {
                date: if date == "today" {
                    daily::today_utc()
                } else {
                    date.clone()
                },
            },
            (_, Some(id), _) => PuzzleChoice::Id { puzzle: id.clone() },
            (_, _, rating) => PuzzleChoice::Rating {
                rating: rating.unwrap_or(600.0),
                seed: series.then_some(seed),
            },
        };
        let request = Request::Puzzle(PuzzleRequest {
            rules: rules.clone(),
            choice,
        });
        let asked = answer(&bot, request)?;
        if args.json {
            writeln!(output, "{}", answered(&asked))?;
        }
        let Answer::Puzzle(asked) = asked else {
            bail!("the puzzle request answered with another answer");
        };
        let done = with_game!(&game, g => one_puzzle(g, &bot, &asked.puzzle, args.json, &mut input, &mut output))?;
        match done {
            Some(true) => solved += 1,
            Some(false) => {}
            None => break,
        }
        if !series {
            break;
        }
    }
    if series && !args.json {
        writeln!(output, "Solved {solved}.")?;
    }
    Ok(())
}

/// A puzzle's question: its id and rating, the board, the moves numbered.
fn show_question<G: Render>(
    game: &G,
    puzzle: &PuzzleQuestion,
    position: &G::Position,
    moves: &[G::Move],
    output: &mut impl Write,
) -> Result<()> {
    let mover = game.turn(position);
    let bound = match puzzle.rating_bound {
        Some(RatingBound::AtMost) => "at most ",
        Some(RatingBound::AtLeast) => "at least ",
        None => "",
    };
    let title = format!(
        "Puzzle {} (rating {bound}{:.0}): {mover} to play a {}. Find the best move.",
        puzzle.id, puzzle.rating, puzzle.roll
    );
    writeln!(output, "\n{}", wrap(&title, ""))?;
    writeln!(output, "{}", game.board(position, mover))?;
    for (i, &mv) in moves.iter().enumerate() {
        writeln!(output, "  {}) {}", i + 1, game.describe_move(mv))?;
    }
    Ok(())
}

/// What `solve_puzzle` said, for people: the solution when the person
/// gave up (`played` false), else the explanation, and the themes once
/// found. True when the puzzle is over.
fn show_verdict<G: Render>(
    game: &G,
    moves: &[G::Move],
    verdict: &SolvePuzzleAnswer,
    played: bool,
    output: &mut impl Write,
) -> Result<bool> {
    let themes: Vec<String> = verdict.themes.iter().map(|t| t.replace('_', " ")).collect();
    if !played {
        let best = moves
            .iter()
            .position(|&m| game.move_json(m) == verdict.best)
            .map_or("?".to_string(), |k| {
                format!("{}) {}", k + 1, game.describe_move(moves[k]))
            });
        let text = format!("The solution: {best} ({}).", themes.join(", "));
        writeln!(output, "{}", wrap(&text, "  "))?;
        return Ok(true);
    }
    writeln!(output, "{}", wrap(&verdict.explanation, "  "))?;
    if verdict.correct {
        let text = format!("Themes: {}.", themes.join(", "));
        writeln!(output, "{}", wrap(&text, "  "))?;
        return Ok(true);
    }
    Ok(false)
}

/// The bot's answer (the protocol's typed answer, asked in process), or
/// its error as this command's.
fn answer(bot: &sawah_protocol::Bot, request: Request) -> Result<Answer> {
    bot.answer(request, None)
        .map_err(|error| anyhow::anyhow!("{}", error.message))
}

/// An answer as `--json` prints it: the protocol's response line.
fn answered(answer: &Answer) -> String {
    Response::Answer {
        id: None,
        answer: answer.clone(),
    }
    .line()
}

/// Shows one puzzle and asks for moves until the answer is found or the
/// person gives up (`s` shows the solution): `Some(true)` when found first
/// time, `None` on quit or end of input.
fn one_puzzle<G: Render + HasHeuristic>(
    game: &G,
    bot: &sawah_protocol::Bot,
    puzzle: &PuzzleQuestion,
    json_only: bool,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> Result<Option<bool>> {
    let position = game
        .position_from_json(&puzzle.position)
        .map_err(|e| anyhow::anyhow!("the puzzle's position: {e}"))?;
    let roll = puzzle.roll;
    let moves = game.legal_moves(&position, roll);
    if !json_only {
        show_question(game, puzzle, &position, &moves, output)?;
    }
    let mut first_try = true;
    loop {
        if !json_only {
            write!(
                output,
                "  your move [1-{}; s shows the solution, q quits]: ",
                moves.len()
            )?;
            output.flush()?;
        }
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let typed = line.trim();
        if typed.eq_ignore_ascii_case("q") {
            return Ok(None);
        }
        let given = if typed.eq_ignore_ascii_case("s") {
            None
        } else {
            match typed.parse::<usize>() {
                Ok(n) if (1..=moves.len()).contains(&n) => Some(moves[n - 1]),
                _ => {
                    writeln!(
                        output,
                        "{}",
                        wrap(
                            &format!("{typed:?} is not a move number from 1 to {}", moves.len()),
                            "  "
                        )
                    )?;
                    continue;
                }
            }
        };
        let Some(played) = given
            .map(|m| game.move_json(m))
            .or(puzzle.moves.first().copied())
        else {
            bail!("puzzle {} lists no moves", puzzle.id);
        };
        let request = Request::SolvePuzzle(SolvePuzzleRequest {
            rules: game.name().to_string(),
            puzzle: puzzle.id.clone(),
            mv: played,
        });
        let verdict = answer(bot, request)?;
        if json_only {
            writeln!(output, "{}", answered(&verdict))?;
        }
        let Answer::SolvePuzzle(verdict) = verdict else {
            bail!("solve_puzzle answered with another answer");
        };
        if json_only {
            if verdict.correct || given.is_none() {
                return Ok(Some(first_try && given.is_some()));
            }
            first_try = false;
            continue;
        }
        if show_verdict(game, &moves, &verdict, given.is_some(), output)? {
            return Ok(Some(first_try && given.is_some()));
        }
        first_try = false;
    }
}
