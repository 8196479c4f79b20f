//! `sawah review`: a game reviewed move by move (or every game of a
//! tournament, summed up per agent), through the protocol's `review`, so
//! the answer is the one every front door gives.

use crate::bots::{BotFiles, native_bot, setup};
use crate::game_file::{GameFile, ReviewFile};
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use sawah_agents::review::{Review, Summary};
use sawah_agents::strength::{Calibration, MIN_DECISIONS};
use sawah_engine::Player;
use sawah_engine::registry::Registry;
use sawah_protocol::messages::BotSpec;
use sawah_protocol::native::Limits;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest game file read.
const MAX_RECORD_BYTES: u64 = 256 << 20;

/// The most JSON values a game record (or a results file's line) may hold:
/// a game of 100,000 turns, its tags and its review, with room to spare.
const MAX_RECORD_VALUES: u64 = 1_000_000;

/// The arguments of `sawah review`.
#[derive(clap::Args, Debug)]
pub struct ReviewArgs {
    /// The game: a game record (JSON, see docs/protocol.md), a game in
    /// RGN (RoyalUr's notation, with a [Rules NAME] tag; a .rgn file or any
    /// text that does not start with `{`), or a tournament's results.jsonl
    /// (with --game-number, or --all).
    pub game: PathBuf,
    /// Which game of a results.jsonl, from 1.
    #[arg(long, default_value_t = 1, conflicts_with = "all")]
    pub game_number: usize,
    /// Every game of a results.jsonl, summed up per agent: decisions, mean
    /// loss, classes, luck and the strength estimate.
    #[arg(long)]
    pub all: bool,
    /// What the moves are measured against: perfect (needs --table), a
    /// level or any agent spec. Default: perfect play when --table gives
    /// the rule set's table, else hard searching one ply deeper.
    #[arg(long, value_name = "SPEC")]
    pub reference: Option<String>,
    /// The solved tables and models it reads.
    #[command(flatten)]
    pub files: BotFiles,
    /// text (fits 80 columns: the summary and the costly moves in the
    /// notation `sawah play` uses; --full for every turn), md (a table per
    /// player and per turn), json, or svg (the win probability over the
    /// game, with luck and mistakes marked). Default: text in a terminal,
    /// md when the output goes to a file or a pipe.
    #[arg(long)]
    pub format: Option<String>,
    /// In the text view, every turn rather than the costly moves only.
    #[arg(long)]
    pub full: bool,
    /// Whose chances the svg shows: light or dark.
    #[arg(long, default_value = "light")]
    pub view: String,
    /// Only the turns a table of exact values covers, measured against
    /// them (md or json): a Senet endgame table (at most K pieces per side
    /// on the board; `sawah solve --rules senet --pieces K`), or a race
    /// rule set's partial table (`sawah solve --partial`: its late layers)
    /// or whole one. Each agent's covered decisions, their share of its
    /// decisions, and its loss per covered decision.
    #[arg(long, value_name = "PATH", conflicts_with = "reference")]
    pub endgame: Option<PathBuf>,
}

/// Reads the game, reviews it and prints the review.
pub fn run(registry: &mut Registry, mut args: ReviewArgs) -> Result<()> {
    use std::io::IsTerminal;
    let format = match args.format.take() {
        Some(format) => format,
        None if std::io::stdout().is_terminal() && !args.all => "text".to_string(),
        None => "md".to_string(),
    };
    if !matches!(format.as_str(), "text" | "md" | "json" | "svg") {
        bail!("--format {format}: text, md, json or svg");
    }
    if args.all && matches!(format.as_str(), "svg" | "text") {
        bail!("--format {format} shows one game; --all prints md or json");
    }
    args.format = Some(format.clone());
    let view = Player::parse(&args.view)
        .with_context(|| format!("--view {}: light or dark", args.view))?;
    let text = as_json_record(registry, &args.game, read_text(&args.game)?)?;
    if let Some(table) = &args.endgame {
        return endgame_review(registry, &args, table, &text);
    }
    if args.all {
        let (totals, first) = review_all(
            registry,
            &args.game,
            &text,
            &args.files,
            args.reference.as_deref(),
        )?;
        match format.as_str() {
            "json" => println!("{}", serde_json::to_string_pretty(&totals)?),
            _ => print!("{}", totals_markdown(&totals, &first)),
        }
        return Ok(());
    }
    let bot = native_bot(registry.clone(), &setup(&args.files, false, Limits::NONE)?)?;
    let reference = args.reference.as_deref().map(BotSpec::from);
    let played = game_in(&text, &args.game, args.game_number)?;
    let mut review = bot
        .review_record(&played.record, reference.as_ref(), None)
        .with_context(|| args.game.display().to_string())?;
    review.players = played.players();
    review.forfeit = played.failure.clone();
    match format.as_str() {
        "text" => {
            let game = registry.resolve(&played.record.rules)?;
            print!(
                "{}",
                sawah_engine::with_game!(&game, g => crate::review_text::terminal(
                    g, &played.record, &review, args.full
                ))
            );
        }
        "json" => print!("{}", review_json(&review, &played)?),
        "svg" => print!(
            "{}",
            sawah_eval::study::review::svg(&review, view).map_err(anyhow::Error::msg)?
        ),
        _ => print!("{}", review.markdown()),
    }
    Ok(())
}

/// One agent's totals over a tournament's games.
#[derive(Debug, serde::Serialize)]
pub struct AgentTotals {
    /// The agent, as the results name it.
    pub agent: String,
    /// Games it played.
    pub games: u64,
    /// Its losses and luck over them.
    #[serde(flatten)]
    pub summary: Summary,
}

/// Reviews every game of the results file `path` (its text, as a JSON
/// record per game, in `text`) with the bot `files` set up, against
/// `reference` (default: the bot's), in parallel under a progress bar:
/// each agent's totals, and the first game's review (its heading).
pub fn review_all(
    registry: &Registry,
    path: &Path,
    text: &str,
    files: &BotFiles,
    reference: Option<&str>,
) -> Result<(Vec<AgentTotals>, Review)> {
    let bot = native_bot(registry.clone(), &setup(files, false, Limits::NONE)?)?;
    let reference = reference.map(BotSpec::from);
    let games = all_games(path, text)?;
    // A review per game: without a table, a search per roll of every
    // turn, so thousands of games take minutes. The bar shows them. Each
    // game's JSON is built where it is reviewed and dropped after it, so
    // memory goes with the text, not with every game's tree at once.
    let bar = crate::progress::bar(
        games.len() as u64,
        "{elapsed_precise} [{bar:30}] {pos}/{len} games reviewed ({rate}, ETA {eta})",
    );
    let name_of = |k: usize| format!("{}: game {}", path.display(), k + 1);
    let mut reviewed: Vec<([String; 2], Review)> = games
        .into_par_iter()
        .enumerate()
        .map(|(k, line)| {
            let played = read_game(line).with_context(|| name_of(k))?;
            let review = bot
                .review_record(&played.record, reference.as_ref(), None)
                .with_context(|| name_of(k))?;
            bar.inc(1);
            Ok((played.player_names(), review))
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();
    let calibration = bot.calibration(&reviewed[0].1, reference.is_none());
    let summaries: Vec<_> = reviewed
        .iter()
        .map(|(names, review)| (names.clone(), [review.light.clone(), review.dark.clone()]))
        .collect();
    let totals = per_agent(&summaries, calibration.as_ref());
    let first = reviewed.swap_remove(0).1;
    Ok((totals, first))
}

/// Every game line of a results.jsonl (`text`, read from `path`), each
/// bounded (`results_lines`); at least one. Each is parsed where it is
/// used.
pub(crate) fn all_games<'a>(path: &Path, text: &'a str) -> Result<Vec<&'a str>> {
    let games = crate::results_lines::games_in(path, text)?;
    if games.is_empty() {
        bail!("{}: no games in it", path.display());
    }
    Ok(games)
}

/// A game line (a results line, or one record) read as its game.
fn read_game(line: &str) -> Result<GameFile> {
    serde_json::from_str(line).context("not a game record")
}

/// One agent's exact review over the turns a table covers.
#[derive(Debug, serde::Serialize, serde::Deserialize, Clone)]
pub struct CoveredTotals {
    /// The agent, as the results name it.
    pub agent: String,
    /// Games it played.
    pub games: u64,
    /// Its decisions in those games, covered or not.
    pub decisions: u64,
    /// Its decisions the table covers.
    pub covered: u64,
    /// Its mean loss per covered decision, in percentage points.
    pub mean_loss_pp: f64,
    /// Its mistakes and blunders there.
    pub mistakes: u64,
    /// See [`CoveredTotals::mistakes`].
    pub blunders: u64,
}

impl CoveredTotals {
    /// The share of its decisions the table covers.
    pub fn share(&self) -> f64 {
        self.covered as f64 / self.decisions.max(1) as f64
    }
}

/// Reviews every turn of `games` (results records of one rule set) that
/// the table at `table_path` covers, against its exact values: a Senet
/// endgame table, or a race rule set's table (partial or whole). Each
/// agent's totals, and the reference in words.
pub fn covered_review(
    registry: &Registry,
    games: &[&str],
    table_path: &Path,
    name_of: &(dyn Fn(usize) -> String + Sync),
) -> Result<(Vec<CoveredTotals>, String)> {
    use sawah_agents::review::{ExactReview, race_move_values, review_endgame, review_exact};
    let parse = |k: usize, line: &str| read_game(line).with_context(|| name_of(k));
    let rules = parse(0, games.first().context("no games")?)?.record.rules;
    // By name only: a results file names rule sets, never files.
    let game = registry.get(&rules)?;
    enum Exact {
        Race(Box<sawah_agents::table::Table>),
        Senet(Box<sawah_agents::endgame::EndgameTable>),
    }
    let shown = || table_path.display().to_string();
    let (exact, reference) = match &game {
        sawah_engine::AnyGame::Race(race) => {
            let table =
                sawah_agents::table::Table::open_partial(table_path, race).with_context(shown)?;
            let reference = format!(
                "the exact values of the table {} ({})",
                shown(),
                table.layers()
            );
            (Exact::Race(Box::new(table)), reference)
        }
        sawah_engine::AnyGame::Senet(_) => {
            let table =
                sawah_agents::endgame::EndgameTable::open(table_path).with_context(shown)?;
            let reference = format!(
                "the exact values of the Senet endgame table {} (at most {} per side on the board)",
                shown(),
                match table.pieces() {
                    1 => "1 piece".to_string(),
                    n => format!("{n} pieces"),
                }
            );
            (Exact::Senet(Box::new(table)), reference)
        }
    };
    let reviewed: Vec<([String; 2], ExactReview)> = games
        .par_iter()
        .enumerate()
        .map(|(k, line)| {
            let played = parse(k, line)?;
            let record = &played.record;
            if record.rules != rules {
                bail!("{}: a game of {}, not {rules}", name_of(k), record.rules);
            }
            let review = match (&game, &exact) {
                (sawah_engine::AnyGame::Race(g), Exact::Race(table)) => {
                    let start = record.start_position(&**g).with_context(|| name_of(k))?;
                    review_exact(&**g, start, &record.moves, |p, moves| {
                        race_move_values(g, table, p, moves)
                    })
                }
                (sawah_engine::AnyGame::Senet(g), Exact::Senet(table)) => {
                    let start = record.start_position(&**g).with_context(|| name_of(k))?;
                    review_endgame(g, table, start, &record.moves).map(|covered| ExactReview {
                        decisions: decisions_of(&**g, start, &record.moves),
                        covered,
                    })
                }
                _ => unreachable!("the table was opened for the game's family"),
            }
            .with_context(|| name_of(k))?;
            Ok((played.player_names(), review))
        })
        .collect::<Result<_>>()?;
    let mut totals: BTreeMap<String, (u64, u64, Summary)> = BTreeMap::new();
    for (names, review) in &reviewed {
        for player in Player::BOTH {
            let entry = totals.entry(names[player.index()].clone()).or_default();
            entry.0 += 1;
            entry.1 += review.decisions[player.index()];
            entry.2.merge(&review.covered[player.index()]);
        }
    }
    let mut list: Vec<CoveredTotals> = totals
        .into_iter()
        .map(|(agent, (games, decisions, summary))| {
            // `merge` keeps the mean and spread up to date.
            CoveredTotals {
                agent,
                games,
                decisions,
                covered: summary.decisions,
                mean_loss_pp: summary.mean_loss_pp,
                mistakes: summary.mistakes,
                blunders: summary.blunders,
            }
        })
        .collect();
    list.sort_by(|a, b| a.mean_loss_pp.total_cmp(&b.mean_loss_pp));
    Ok((list, reference))
}

/// Every decision (a roll with more than one legal move) of each player
/// in a game: what a review counts, covered or not.
fn decisions_of<G: sawah_engine::Game + sawah_engine::Codec>(
    game: &G,
    start: G::Position,
    tokens: &[String],
) -> [u64; 2] {
    let mut decisions = [0; 2];
    let _ = sawah_engine::record::replay_from(game, start, tokens, |step| {
        if step.legal.len() > 1 {
            decisions[game.turn(step.position).index()] += 1;
        }
    });
    decisions
}

/// `sawah review --endgame TABLE`: each turn the table covers (a Senet
/// endgame table, or a race rule set's partial or whole table), against
/// its exact values; per agent with --all.
fn endgame_review(
    registry: &Registry,
    args: &ReviewArgs,
    table_path: &Path,
    text: &str,
) -> Result<()> {
    if args.format.as_deref() == Some("svg") {
        bail!("--endgame prints md or json; the svg draws whole games");
    }
    let one;
    let games = if args.all {
        all_games(&args.game, text)?
    } else {
        one = serde_json::to_string(&game_in(text, &args.game, args.game_number)?)?;
        vec![one.as_str()]
    };
    let name_of = |k: usize| format!("{}: game {}", args.game.display(), k + 1);
    let (totals, reference) = covered_review(registry, &games, table_path, &name_of)?;
    match args.format.as_deref().unwrap_or("md") {
        "json" => println!("{}", serde_json::to_string_pretty(&totals)?),
        _ => print!("{}", covered_markdown(&totals, &reference, games.len())),
    }
    Ok(())
}

/// The covered review as Markdown: a heading, then a row per agent.
pub fn covered_markdown(totals: &[CoveredTotals], reference: &str, games: usize) -> String {
    use std::fmt::Write as _;
    let plural = if games == 1 { "" } else { "s" };
    let mut out = format!(
        "# The covered turns of {games} game{plural}\n\nReference: {reference}; only the turns it covers. Losses in percentage points of win probability.\n\n| agent | games | decisions | covered | share | loss per covered decision | mistakes | blunders |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for t in totals {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {:.1}% | {:.4} pp | {} | {} |",
            t.agent,
            t.games,
            t.decisions,
            t.covered,
            100.0 * t.share(),
            t.mean_loss_pp,
            t.mistakes,
            t.blunders
        );
    }
    out
}

/// Each agent's totals (games it played on either side) from each game's
/// light and dark summaries, with its strength estimate on `calibration`
/// (the scale of the reference used).
fn per_agent(
    reviewed: &[([String; 2], [Summary; 2])],
    calibration: Option<&Calibration>,
) -> Vec<AgentTotals> {
    let mut totals: BTreeMap<String, AgentTotals> = BTreeMap::new();
    for (names, summaries) in reviewed {
        for player in Player::BOTH {
            let agent = names[player.index()].clone();
            let entry = totals.entry(agent.clone()).or_insert_with(|| AgentTotals {
                agent,
                games: 0,
                summary: Summary::default(),
            });
            entry.games += 1;
            entry.summary.merge(&summaries[player.index()]);
        }
    }
    let mut list: Vec<AgentTotals> = totals.into_values().collect();
    for entry in &mut list {
        let s = &mut entry.summary;
        s.strength =
            calibration.and_then(|c| c.estimate(s.mean_loss_pp, s.loss_sd_pp, s.decisions));
    }
    list.sort_by(|a, b| a.summary.mean_loss_pp.total_cmp(&b.summary.mean_loss_pp));
    list
}

fn totals_markdown(totals: &[AgentTotals], first: &Review) -> String {
    let heading = format!(
        "# Review of {} games of {}\n\nReference: {}. Losses and luck in percentage points of win probability.\n\n",
        totals.iter().map(|t| t.games).sum::<u64>() / 2,
        first.rules,
        first.reference
    );
    totals_table(totals, &heading)
}

/// `heading`, then a row of totals per agent.
fn totals_table(totals: &[AgentTotals], heading: &str) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "{heading}| agent | games | decisions | mean loss | mistakes | blunders | loss per game | luck per game | strength |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n"
    );
    for t in totals {
        let s = &t.summary;
        // Per game as well as per decision: a near-perfect agent's mean
        // loss rounds to a few thousandths, while its loss per game is
        // what its expected score against perfect play gives away.
        let games = t.games.max(1) as f64;
        let strength = match &s.strength {
            None => "–".to_string(),
            Some(_) if s.decisions < MIN_DECISIONS => "too few decisions".to_string(),
            Some(e) => format!("{:.0} ({:.0} to {:.0})", e.elo, e.low, e.high),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {:.3} | {} | {} | {:.3} | {:+.2} | {strength} |",
            t.agent,
            t.games,
            s.decisions,
            s.mean_loss_pp,
            s.mistakes,
            s.blunders,
            s.total_loss_pp / games,
            s.luck_pp / games + 0.0
        );
    }
    out
}

/// The file's text, at most [`MAX_RECORD_BYTES`].
pub(crate) fn read_text(path: &Path) -> Result<String> {
    // A FIFO or a device is refused before opening (opening a FIFO waits
    // for a writer).
    let file =
        sawah_engine::files::open_regular(path).with_context(|| path.display().to_string())?;
    let mut text = String::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| path.display().to_string())?;
    if text.len() as u64 > MAX_RECORD_BYTES {
        bail!("{}: larger than 256 MiB", path.display());
    }
    Ok(text)
}

/// `text` as JSON: an RGN game (a `.rgn` file, or text that does not
/// start with `{`) becomes its game record; JSON is left as it is.
fn as_json_record(registry: &Registry, path: &Path, text: String) -> Result<String> {
    if !sawah_engine::rgn::is_rgn_file(path) && text.trim_start().starts_with('{') {
        return Ok(text);
    }
    let record = sawah_engine::rgn::to_record(registry, &text)
        .with_context(|| format!("{} (read as RGN)", path.display()))?;
    Ok(serde_json::to_string(&record)?)
}

/// A review as JSON, carrying the game it reviewed (`"record"`: the rule
/// set, start, moves and the review's players), so that the file can be
/// read back as the game (`sawah review REVIEW.json`).
pub fn review_json(review: &Review, played: &GameFile) -> Result<String> {
    #[derive(serde::Serialize)]
    struct WithRecord<'a> {
        #[serde(flatten)]
        review: &'a Review,
        record: GameFile,
    }
    let players = review.players.clone();
    let record = GameFile {
        record: played.record.clone(),
        light: players.as_ref().map(|p| p.light.clone()),
        dark: players.map(|p| p.dark),
        failure: None,
    };
    let written = WithRecord { review, record };
    Ok(serde_json::to_string_pretty(&written)? + "\n")
}

/// The game in `text`: the whole as one JSON object (a game record, or a
/// review with its record), or game `number` of a results.jsonl.
fn game_in(text: &str, path: &Path, number: usize) -> Result<GameFile> {
    // Counted before it is built: a parsed value takes about ten times its
    // text, and no game needs more values than this.
    sawah_engine::census::check(text, MAX_RECORD_VALUES).or_else(|error| {
        if error.contains("JSON values") {
            bail!("{}: {error}", path.display())
        } else {
            Ok(())
        }
    })?;
    let whole = serde_json::from_str::<serde::de::IgnoredAny>(text);
    if whole.is_ok() {
        // A review written as JSON carries its game's record.
        if let Ok(review) = serde_json::from_str::<ReviewFile>(text) {
            return Ok(review.record);
        }
        return read_game(text).with_context(|| path.display().to_string());
    }
    let games = crate::results_lines::games_in(path, text)?;
    if games.is_empty()
        && let Err(error) = whole
    {
        // Neither one JSON value nor JSON lines: say what is wrong with it
        // as the one record it most likely is.
        bail!(
            "{}: not a game record (JSON: {error}), an RGN game or a results file",
            path.display()
        );
    }
    let line = number
        .checked_sub(1)
        .and_then(|k| games.get(k))
        .with_context(|| {
            format!(
                "{}: no game {number} (it holds {})",
                path.display(),
                games.len()
            )
        })?;
    read_game(line).with_context(|| format!("{}: game {number}", path.display()))
}
