//! `sawah tournament`, `sawah elo` and `sawah sprt`: the command-line side
//! of the eval crate (argument checks, progress bars, printing).

use crate::entrants::Entrants;
use anyhow::{Context, Result, bail};
use sawah_agents::heuristic::HasHeuristic;
use sawah_engine::{AnyGame, Codec, Registry, with_game};
use sawah_eval::arena::entrant::Entrant;
use sawah_eval::arena::luck::LuckMeter;
use sawah_eval::arena::merge::merge;
use sawah_eval::arena::results::{self, GameRecord};
use sawah_eval::arena::tournament::{self, Format, Progress, Shard, Tournament};
use sawah_eval::ratings::report::{EloTable, TableOptions, elo_table};
use sawah_eval::ratings::sprt;
use sawah_eval::study::analysis::loss_in_folders;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `sawah tournament` was asked.
#[derive(Debug)]
pub struct TournamentArgs {
    /// Rule set name or rule file.
    pub rules: String,
    /// Agent specs as given.
    pub agents: Vec<String>,
    /// Games per pairing.
    pub games: u64,
    /// Round robin or gauntlet.
    pub format: Format,
    /// Seed.
    pub seed: u64,
    /// Output folder.
    pub out: PathBuf,
    /// Share of the schedule.
    pub shard: Shard,
    /// `NAME=VALUE` anchor.
    pub anchor: String,
    /// Virtual draws per pairing.
    pub prior: f64,
    /// Solved table for loss per move (and `perfect` agents without one).
    pub table: Option<String>,
    /// The shipped models' folder (default: found as `models::find` finds it).
    pub models: Option<PathBuf>,
    /// Outside bots and how they are refereed.
    pub outside: crate::entrants::OutsideArgs,
    /// Whether to measure every game's luck, and by what reference.
    pub luck: crate::luck::LuckArgs,
    /// The command line as run, for the table's `Command:` line (`None`:
    /// the line is rebuilt from these arguments, for tournaments run as a
    /// step of another command).
    pub command: Option<String>,
}

/// The table's `Command:` line: `command` as run, or `rebuilt` from the
/// arguments, with the bots file's name and SHA-256 when outside bots
/// play (the file decides what they are).
fn command_note(command: Option<&str>, rebuilt: String, bots: Option<&Path>) -> Result<String> {
    let mut line = format!(
        "Command: `{}`",
        command.map_or_else(|| in_this_folder(&rebuilt), str::to_string)
    );
    if let Some(bots) = bots {
        let sha = crate::digest::sha256_file(bots)?;
        line.push_str(&format!(" (bots file {}, SHA-256 {sha})", bots.display()));
    }
    Ok(line)
}

/// `command` as it can be run from anywhere: preceded by a `cd` to the
/// folder it ran in (its paths may be relative to it).
pub fn in_this_folder(command: &str) -> String {
    match std::env::current_dir() {
        Ok(dir) => format!(
            "cd {} && {command}",
            shell_quoted(&dir.display().to_string())
        ),
        Err(_) => command.to_string(),
    }
}

/// `text` as one word for a POSIX shell.
pub fn shell_quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A command line with its `--shard` value (`auto`, `auto/N`) replaced
/// by the shard it resolved to, so that it runs the same share again
/// outside the job that set the variables.
pub fn with_shard(command: &str, shard: &sawah_eval::arena::tournament::Shard) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut next_is_shard = false;
    for word in command.split(' ') {
        if next_is_shard {
            words.push(shard.to_string());
            next_is_shard = false;
        } else if word == "--shard" {
            words.push(word.to_string());
            next_is_shard = true;
        } else if word.starts_with("--shard=") {
            words.push(format!("--shard={shard}"));
        } else {
            words.push(word.to_string());
        }
    }
    words.join(" ")
}

/// The identity of a rule set's full description.
fn rules_digest(game: &AnyGame) -> String {
    with_game!(game, g => g.rules_digest())
}

/// Splits `NAME=VALUE` (at the last `=`), or takes a bare agent name as 0.
fn parse_anchor(text: &str, names: &[String]) -> Result<(String, f64)> {
    if names.iter().any(|n| n == text) {
        return Ok((text.to_string(), 0.0));
    }
    let (name, value) = text
        .rsplit_once('=')
        .with_context(|| format!("--anchor is NAME=ELO (e.g. random=0), not {text:?}"))?;
    let value: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .with_context(|| format!("--anchor {text:?}: {value:?} is not a rating"))?;
    Ok((name.trim().to_string(), value))
}

/// The anchor to use: the one asked for, or the first agent when the
/// default `random` is not in the table.
fn anchor_options(anchor: &str, names: &[String], explicit: bool) -> Result<(Option<String>, f64)> {
    let (name, value) = parse_anchor(anchor, names)?;
    if !names.contains(&name) {
        if explicit {
            bail!(
                "--anchor {name:?} is not one of the agents: {}",
                names.join(", ")
            );
        }
        return Ok((None, 0.0));
    }
    Ok((Some(name), value))
}

fn progress_bar(total: u64, what: &str) -> indicatif::ProgressBar {
    crate::progress::bar(
        total,
        &format!(
            "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {what} ({{rate}}, ETA {{eta}})  {{msg}}"
        ),
    )
}

fn standings_line(progress: &Progress) -> String {
    let mut rows: Vec<&(String, f64, u64)> = progress.standings.iter().collect();
    rows.sort_by(|a, b| {
        let score = |r: &(String, f64, u64)| if r.2 == 0 { 0.0 } else { r.1 / r.2 as f64 };
        score(b).total_cmp(&score(a))
    });
    let mut line = rows
        .iter()
        .map(|(name, points, games)| {
            let pct = if *games == 0 {
                0.0
            } else {
                100.0 * points / *games as f64
            };
            format!("{name} {pct:.0}%")
        })
        .collect::<Vec<_>>()
        .join(" | ");
    if progress.failures > 0 {
        line.push_str(&format!(" | {} forfeits", progress.failures));
    }
    let work = progress.play_seconds + progress.luck_seconds;
    if progress.luck_seconds > 0.0 && work > 0.0 {
        line.push_str(&format!(
            " | luck {:.0}% of the work",
            100.0 * progress.luck_seconds / work
        ));
    }
    line
}

/// The shipped levels among `agents` (named `easy`, `medium` or `hard`)
/// with their ratings in the models' manifest, for rule set `rules`: the
/// scale a table is put on when no `--anchor` is given.
pub fn levels_known(
    models: Option<&sawah_agents::manifest::Models>,
    rules: &str,
    agents: &[String],
) -> Vec<(String, f64)> {
    let Some(models) = models else {
        return Vec::new();
    };
    sawah_agents::manifest::LEVELS
        .iter()
        .filter(|level| agents.iter().any(|a| a.trim() == **level))
        .filter_map(|level| {
            let elo = models.level(rules, level)?.measured.elo?;
            Some((level.to_string(), elo))
        })
        .collect()
}

/// `1 pairing`, `6 pairings`.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Runs `sawah tournament`.
pub fn tournament(registry: &mut Registry, args: TournamentArgs, anchor_given: bool) -> Result<()> {
    let table = match play_and_rate(registry, &args, anchor_given, false) {
        Ok(table) => table,
        // A shard whose share of the schedule holds no game did nothing
        // wrong: an array task that ends with an error would be retried.
        Err(error) if error.downcast_ref::<EmptyShard>().is_some() => {
            println!("{error}");
            return Ok(());
        }
        Err(error) => return Err(error),
    };
    print_table(&table, &args.out);
    Ok(())
}

/// Prints a table written to `out`: made for the terminal when standard
/// output is one (it fits its width), else the Markdown of elo.md; then
/// the files written.
fn print_table(table: &EloTable, out: &Path) {
    match crate::columns::stdout_width() {
        Some(width) => print!("{}", super::text::terminal(table, width, Some(out))),
        None => {
            print!("{}", table.markdown());
            println!(
                "written: {}/elo.md, elo.csv, crosstable.csv, elo.json, elo.svg",
                out.display()
            );
        }
    }
}

/// A shard whose share of the schedule holds no game: nothing to rate.
#[derive(Debug)]
pub struct EmptyShard {
    shard: String,
    pairs: usize,
    count: u64,
}

impl std::fmt::Display for EmptyShard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "shard {} holds no game of this schedule ({} pairs in all, dealt to {} shards): nothing to rate here; the other shards' folders hold the games (merge them with sawah elo)",
            self.shard, self.pairs, self.count
        )
    }
}

impl std::error::Error for EmptyShard {}

/// Plays (or resumes) the tournament `args` asks for and writes its Elo
/// table into its folder; `quiet` leaves out every line but the progress
/// bar (for commands that run tournaments as a step). A shard with no
/// game is the error [`EmptyShard`], after its results file is written.
pub fn play_and_rate(
    registry: &mut Registry,
    args: &TournamentArgs,
    anchor_given: bool,
    quiet: bool,
) -> Result<EloTable> {
    check_counts(args)?;
    let game = registry.resolve(&args.rules)?;
    if let Some(path) = &args.table {
        // Checked now, not after the games.
        open_table(&game, path)?;
    }
    let meter = args
        .luck
        .meter(registry, game.name(), &args.models, args.table.as_deref())?;
    // Levels (easy, medium, hard) resolve through the shipped models;
    // outside bots' stderr goes to OUT/logs/NAME.log.
    let models = crate::models::find(args.models.as_deref())?;
    let known = if anchor_given {
        Vec::new()
    } else {
        levels_known(models.as_ref(), game.name(), &args.agents)
    };
    let mut entrants = crate::entrants::Entrants::new(
        &args.outside,
        Some(args.out.join("logs")),
        models,
        game.name(),
        args.table.clone(),
    )?;
    let t = schedule(&game, args, &mut entrants)?;
    let anchor = anchor_options(&args.anchor, &t.names(), anchor_given)?;
    if !quiet {
        announce(&t, &args.out);
    }
    let meter = meter.as_ref().map(|m| m as &dyn LuckMeter);
    if let Some(meter) = meter
        && !quiet
    {
        println!("luck measured by {}", meter.reference().name);
    }
    let summary = play_with_progress(&game, &t, &args.out, meter)?;
    if !quiet {
        report_run(&entrants, &summary, &args.out);
    }
    if summary.games.is_empty() && t.shard.count > 1 {
        return Err(EmptyShard {
            shard: t.shard.to_string(),
            pairs: t.schedule().len(),
            count: t.shard.count,
        }
        .into());
    }
    let heading = heading(args, &t)?;
    let table = rate(
        &game,
        &summary.games,
        &t.names(),
        &TableOptions {
            anchor,
            prior: args.prior,
            luck_reference: meter.map(|m| m.reference().name.clone()),
            known,
        },
        args.table.as_deref(),
        std::slice::from_ref(&args.out),
    )?;
    table
        .write(&args.out, &heading)
        .with_context(|| format!("writing the Elo table to {}", args.out.display()))?;
    Ok(table)
}

/// `--games` and `--prior` within their ranges.
fn check_counts(args: &TournamentArgs) -> Result<()> {
    if args.games == 0 || args.games > 100_000_000 {
        bail!("--games must be from 1 to 100000000, not {}", args.games);
    }
    if !(args.prior.is_finite() && args.prior >= 0.0) {
        bail!(
            "--prior must be a number of games, 0 or more, not {}",
            args.prior
        );
    }
    Ok(())
}

/// The run's first line: what is played, and where the results go.
fn announce(t: &Tournament, out: &Path) {
    terminal_line(&format!(
        "{} tournament on {}: {} agents, {}, {} games each (paired dice), seed {}, shard {}; results in {}",
        t.format,
        t.rules,
        t.agents.len(),
        counted(t.pairings().len(), "pairing"),
        t.pairs_per_pairing() * 2,
        t.seed,
        t.shard,
        out.display()
    ));
}

/// The Elo table's heading: the rule set and the command that played it
/// (as given, or rebuilt with the seed and shard it resolved to).
fn heading(args: &TournamentArgs, t: &Tournament) -> Result<String> {
    let rebuilt = format!(
        "sawah tournament --rules {} --agents {} --games {} --format {} --seed {} --shard {}{}",
        args.rules,
        args.agents.join(","),
        args.games,
        t.format,
        t.seed,
        t.shard,
        luck_flags(&args.luck)
    );
    let note = command_note(
        args.command.as_deref(),
        rebuilt,
        args.outside.bots.as_deref(),
    )?;
    Ok(format!("# {} Elo table\n\n{note}", t.rules))
}

/// The tournament `args` asks for, its agents resolved by `entrants`.
fn schedule(game: &AnyGame, args: &TournamentArgs, entrants: &mut Entrants) -> Result<Tournament> {
    let mut agents = Vec::new();
    let mut labels = Vec::new();
    for text in &args.agents {
        let text = text.trim();
        if text.is_empty() {
            bail!("--agents has an empty entry; give specs separated by commas");
        }
        agents.push(entrants.resolve(text)?);
        labels.push(text.to_string());
    }
    if agents.len() < 2 {
        bail!("--agents needs at least two agents, separated by commas");
    }
    Ok(Tournament {
        rules: game.name().to_string(),
        rules_digest: rules_digest(game),
        agents,
        labels,
        format: args.format,
        games_per_pairing: args.games,
        seed: args.seed,
        shard: args.shard,
        command: args.command.clone(),
    })
}

/// The luck options of a command line, as the table's heading repeats them.
fn luck_flags(luck: &crate::luck::LuckArgs) -> String {
    match (&luck.reference, luck.luck_adjusted) {
        (_, false) => String::new(),
        (None, true) => " --luck-adjusted".into(),
        (Some(reference), true) => format!(" --luck-adjusted --reference {reference}"),
    }
}

/// Plays (or resumes) `t` into `out` under a progress bar with the
/// standings (and, measuring luck, its share of the work).
fn play_with_progress(
    game: &AnyGame,
    t: &Tournament,
    out: &Path,
    luck: Option<&dyn LuckMeter>,
) -> Result<tournament::RunSummary> {
    let bar = progress_bar(2 * t.jobs().len() as u64, "games");
    // The standings are written at most every 250 ms, and whenever the
    // games played have doubled since, so that a fast run's line does not
    // keep the standings of its first game.
    let last: std::sync::Mutex<Option<(Instant, u64)>> = std::sync::Mutex::new(None);
    let observe = |p: &Progress| {
        bar.set_position(p.done);
        if let Ok(mut last) = last.lock()
            && last.is_none_or(|(t, done)| {
                t.elapsed() >= Duration::from_millis(250) || p.done >= 2 * done
            })
        {
            *last = Some((Instant::now(), p.done));
            bar.set_message(standings_line(p));
        }
    };
    let summary = with_game!(game, g => tournament::run_with_luck(g, t, out, luck, &observe))?;
    bar.finish_and_clear();
    Ok(summary)
}

/// What the run did: withdrawn outside bots, a repaired last line, games
/// played now and before.
fn report_run(entrants: &Entrants, summary: &tournament::RunSummary, out: &Path) {
    for bot in entrants.started() {
        if let Some(reason) = bot.withdrawn() {
            // The log is named only when the bot wrote something to stderr:
            // a fault on stdout (a timeout, a malformed answer) is in the
            // reason itself.
            let log = out.join("logs").join(format!("{}.log", bot.name()));
            let written = std::fs::symlink_metadata(&log).is_ok_and(|m| m.is_file() && m.len() > 0);
            let see = if written {
                format!("; its stderr is in {}", log.display())
            } else {
                "; it wrote nothing to stderr".to_string()
            };
            terminal_line(&format!(
                "{}: {reason}; its remaining games were recorded as forfeits{see}",
                bot.name(),
            ));
        }
    }
    if summary.cut_bytes > 0 {
        println!(
            "cut off an unfinished last line ({} bytes) left by an interrupted run",
            summary.cut_bytes
        );
    }
    terminal_line(&format!(
        "{} games played now, {} from before; {} in {}",
        summary.played,
        summary.resumed,
        summary.games.len(),
        out.join(results::RESULTS_FILE).display()
    ));
    let work = summary.play_seconds + summary.luck_seconds;
    if summary.luck_seconds > 0.0 && work > 0.0 {
        println!(
            "measuring luck took {:.1} s of {:.1} s thread time ({:.1}%)",
            summary.luck_seconds,
            work,
            100.0 * summary.luck_seconds / work
        );
    }
}

/// Prints a line of text: wrapped to the terminal's width when standard
/// output is one, whole otherwise.
fn terminal_line(line: &str) {
    match crate::columns::stdout_width() {
        Some(width) => println!("{}", crate::columns::wrap_to(line, width, "", "  ")),
        None => println!("{line}"),
    }
}

/// The solved table at `path` for `game`, checked (a race rule set's, and
/// this one's).
fn open_table<'g>(
    game: &'g AnyGame,
    path: &str,
) -> Result<(&'g sawah_engine::race::RuleSet, sawah_agents::table::Table)> {
    let AnyGame::Race(rules) = game else {
        bail!(
            "--table: {} has no solved tables (only the race family is solved)",
            game.name()
        );
    };
    Ok((
        rules,
        sawah_agents::table::Table::open(Path::new(path), rules)?,
    ))
}

/// The Elo table of `games`, with loss per move where a table is given
/// (measured by replaying the games in the result folders `dirs`).
fn rate(
    game: &AnyGame,
    games: &[GameRecord],
    order: &[String],
    options: &TableOptions,
    table: Option<&str>,
    dirs: &[PathBuf],
) -> Result<EloTable> {
    let mut loss = HashMap::new();
    if let Some(path) = table {
        let (rules, solved) = open_table(game, path)?;
        for (name, l) in loss_in_folders(rules, &solved, dirs)? {
            loss.insert(name, l.mean());
        }
    }
    Ok(elo_table(game.name(), games, order, options, &loss)?)
}

/// What `sawah elo` was asked.
#[derive(Debug)]
pub struct EloRun<'a> {
    /// The folders to merge.
    pub dirs: &'a [PathBuf],
    /// Where to write the table.
    pub out: Option<&'a Path>,
    /// `NAME=VALUE` anchor.
    pub anchor: &'a str,
    /// Whether the anchor was given.
    pub anchor_given: bool,
    /// Virtual draws per pairing.
    pub prior: f64,
    /// Solved table for loss per move.
    pub table: Option<&'a str>,
    /// Also rate on the luck-adjusted scores the folders carry.
    pub luck_adjusted: bool,
    /// The models folder whose levels set the scale (see `levels_known`).
    pub models: Option<&'a Path>,
    /// The command line as run, for the table (`None`: rebuilt).
    pub command: Option<&'a str>,
}

/// Runs `sawah elo`: merges result folders into one table.
pub fn elo(registry: &mut Registry, run: EloRun) -> Result<()> {
    let EloRun {
        dirs,
        out,
        anchor,
        anchor_given,
        prior,
        table,
        luck_adjusted,
        models,
        command,
    } = run;
    if !(prior.is_finite() && prior >= 0.0) {
        bail!("--prior must be a number of games, 0 or more, not {prior}");
    }
    let merged = merge(dirs, luck_adjusted, &mut |note| eprintln!("note: {note}"))?;
    let (rules_name, rules_digest) = &merged.rules;
    let game = registry.resolve(rules_name).with_context(|| {
        format!("the results are of {rules_name}; load its rule file with --rules-file")
    })?;
    if self::rules_digest(&game) != *rules_digest {
        bail!(
            "the results were played under another version of {rules_name} (digest {rules_digest}, this one is {})",
            self::rules_digest(&game)
        );
    }
    let names = sawah_eval::ratings::report::agents_of(&merged.games, &merged.order);
    let anchor = anchor_options(anchor, &names, anchor_given)?;
    // The levels' scale, as the tournament set it (the same models folder
    // resolves the same level names).
    let known = if anchor_given {
        Vec::new()
    } else {
        let models = crate::models::find(models)?;
        levels_known(models.as_ref(), rules_name, &names)
    };
    let options = TableOptions {
        anchor,
        prior,
        luck_reference: merged.luck.as_ref().map(|l| l.name.clone()),
        known,
    };
    let elo_table = rate(&game, &merged.games, &merged.order, &options, table, dirs)?;
    if let Some(out) = out {
        let sources: HashSet<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        let mut sources: Vec<String> = sources.into_iter().collect();
        sources.sort();
        let rebuilt = format!(
            "sawah elo {}{} --out {}",
            sources.join(" "),
            if luck_adjusted {
                " --luck-adjusted"
            } else {
                ""
            },
            out.display()
        );
        let mut heading = format!(
            "# {rules_name} Elo table\n\n{}",
            command_note(command, rebuilt, None)?
        );
        if !merged.commands.is_empty() {
            let played: Vec<String> = merged.commands.iter().map(|c| format!("`{c}`")).collect();
            heading.push_str(&format!(
                "\n\nThe games were played by: {}",
                played.join("; ")
            ));
        }
        elo_table
            .write(out, &heading)
            .with_context(|| format!("writing the Elo table to {}", out.display()))?;
    }
    println!(
        "{} games from {} folder{}{}",
        merged.games.len(),
        dirs.len(),
        if dirs.len() == 1 { "" } else { "s" },
        if merged.duplicates > 0 {
            format!(" ({} duplicates counted once)", merged.duplicates)
        } else {
            String::new()
        }
    );
    match out {
        Some(out) => print_table(&elo_table, out),
        None => match crate::columns::stdout_width() {
            Some(width) => print!("{}", super::text::terminal(&elo_table, width, None)),
            None => print!("{}", elo_table.markdown()),
        },
    }
    Ok(())
}

fn run_sprt<G: HasHeuristic + Sync + 'static>(
    game: &G,
    args: &super::sprt_args::SprtCommandArgs,
    new: &Entrant,
    base: &Entrant,
    meter: Option<&sawah_eval::arena::luck::ReviewLuck>,
) -> Result<sprt::SprtState> {
    let bar = progress_bar(args.max_games.div_ceil(2), "pairs");
    let params = args.params();
    let (low, high) = (params.lower_bound(), params.upper_bound());
    let schedule = sprt::SprtSchedule {
        seed: args.seed,
        batch: args.batch,
        max_pairs: args.max_games.div_ceil(2),
    };
    let mut observe = |s: &sprt::SprtState| {
        bar.set_position(s.counts.pairs());
        let score = s.adjusted.map_or(s.counts.score(), |m| m.mean());
        let kind = if s.adjusted.is_some() {
            "adjusted score"
        } else {
            "score"
        };
        bar.set_message(format!(
            "LLR {:.2} ({low:.2}, {high:.2}), {kind} {:.1}%",
            s.llr,
            100.0 * score
        ));
    };
    let state = match meter {
        None => sprt::run(game, new, base, &args.params(), schedule, &mut observe)?,
        Some(meter) => sprt::run_with_luck(
            game,
            new,
            base,
            &args.params(),
            schedule,
            meter,
            &mut observe,
        )?,
    };
    bar.finish_and_clear();
    Ok(state)
}

/// Runs `sawah sprt`: checks the settings, plays the test, reports it.
pub fn sprt_command(
    registry: &mut Registry,
    args: super::sprt_args::SprtCommandArgs,
) -> Result<()> {
    check_sprt_args(&args)?;
    let game = registry.resolve(&args.rules)?;
    if let Some(path) = &args.table {
        open_table(&game, path)?;
    }
    let models = crate::models::find(args.models.as_deref())?;
    let mut entrants = crate::entrants::Entrants::new(
        &args.outside,
        args.logs.clone(),
        models,
        game.name(),
        args.table.clone(),
    )?;
    let new = entrants.resolve(&args.new).context("--new")?;
    let base = entrants.resolve(&args.base).context("--base")?;
    let meter = args
        .luck
        .meter(registry, game.name(), &args.models, args.table.as_deref())?;
    let reference = meter.as_ref().map(|m| {
        sawah_eval::arena::luck::LuckMeter::reference(m)
            .name
            .clone()
    });
    print_sprt_intro(game.name(), &args, reference.as_deref());
    let state = with_game!(&game, g => run_sprt(g, &args, &new, &base, meter.as_ref()))?;
    print_sprt_verdict(&state);
    if let Some(path) = &args.out {
        write_sprt_json(path, game.name(), &args, &state, reference.as_deref())?;
    }
    Ok(())
}

/// The batch and game bounds, and the test's own settings.
fn check_sprt_args(args: &super::sprt_args::SprtCommandArgs) -> Result<()> {
    args.params().validate()?;
    if args.batch == 0 || args.batch > 1_000_000 {
        bail!(
            "--batch must be from 1 to 1000000 pairs, not {}",
            args.batch
        );
    }
    if args.max_games < 2 || args.max_games > 100_000_000 {
        bail!(
            "--max-games must be from 2 to 100000000, not {}",
            args.max_games
        );
    }
    Ok(())
}

/// What is tested, with which bounds, and what measures the luck.
fn print_sprt_intro(
    rules: &str,
    args: &super::sprt_args::SprtCommandArgs,
    reference: Option<&str>,
) {
    let p = &args.params();
    println!(
        "SPRT on {rules}: {} (new) vs {} (base), H0 elo {} vs H1 elo {} ({} Elo), alpha {}, beta {}, bounds ({:.3}, {:.3}), seed {}",
        args.new,
        args.base,
        p.elo0,
        p.elo1,
        p.model,
        p.alpha,
        p.beta,
        p.lower_bound(),
        p.upper_bound(),
        args.seed
    );
    if let Some(reference) = reference {
        println!(
            "deciding on luck-adjusted scores (normal LLR of continuous pair scores); luck measured by {reference}"
        );
    }
}

/// The decision, the pair results and, if measured, the adjusted score.
fn print_sprt_verdict(state: &sprt::SprtState) {
    let c = state.counts.0;
    let verdict = match state.decision {
        sprt::Decision::AcceptH1 => "H1 accepted: promote the new agent",
        sprt::Decision::AcceptH0 => "H0 accepted: keep the base agent",
        sprt::Decision::Continue => "no decision within --max-games",
    };
    println!(
        "{verdict}. LLR {:.3} after {} games ({} pairs); score {:.2}%; pair results (0, 1/2, 1, 3/2, 2 points): {}, {}, {}, {}, {}",
        state.llr,
        2 * state.counts.pairs(),
        state.counts.pairs(),
        100.0 * state.counts.score(),
        c[0],
        c[1],
        c[2],
        c[3],
        c[4]
    );
    if let Some(moments) = &state.adjusted {
        println!(
            "luck-adjusted score {:.2}% (sd of a pair {:.4}) over {} pairs",
            100.0 * moments.mean(),
            moments.variance().sqrt(),
            moments.n
        );
    }
}

/// `--out`: the settings and the outcome as JSON, written atomically.
fn write_sprt_json(
    path: &Path,
    rules: &str,
    args: &super::sprt_args::SprtCommandArgs,
    state: &sprt::SprtState,
    reference: Option<&str>,
) -> Result<()> {
    let p = &args.params();
    let json = serde_json::json!({
        "rules": rules,
        "new": args.new,
        "base": args.base,
        "elo0": p.elo0,
        "elo1": p.elo1,
        "alpha": p.alpha,
        "beta": p.beta,
        "model": p.model.to_string(),
        "seed": args.seed,
        "batch": args.batch,
        "lower_bound": p.lower_bound(),
        "upper_bound": p.upper_bound(),
        "llr": state.llr,
        "decision": state.decision.to_string(),
        "pairs": state.counts.pairs(),
        "pentanomial": state.counts.0,
        "score": state.counts.score(),
        "luck_adjusted_score": state.adjusted.map(|m| m.mean()),
        "luck_reference": reference,
    });
    let text = serde_json::to_string_pretty(&json)? + "\n";
    sawah_agents::files::write_atomically(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    println!("written: {}", path.display());
    Ok(())
}
