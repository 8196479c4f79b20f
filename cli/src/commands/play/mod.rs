//! `sawah play`: a game in the terminal against the computer.

pub mod game;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use sawah_engine::record::Record;
use sawah_engine::registry::Registry;
use sawah_engine::senet::daily::{self, DailyThrows};
use sawah_engine::{AnyGame, Player, with_game};
use sawah_workflows::game_file::GameFile;
use std::io;
use std::path::PathBuf;

use sawah_agents::review::{Class, Review};
use sawah_protocol::native::{Limits, Setup, TableArg};

/// The side a player takes.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Side {
    /// Light, who moves first.
    Light,
    /// Dark.
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

/// The arguments of `sawah play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Rule set name (see `sawah rules`) or rule file path.
    #[arg(long, default_value = "sawah")]
    pub rules: String,
    /// The side you play (light moves first).
    #[arg(long, value_enum, default_value = "light")]
    pub side: Side,
    /// Seed for the dice and the computer's choices (default: from the clock; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Senet only: play the game of the day with the day's throws
    /// (DATE as YYYY-MM-DD; today, in UTC, when left out), against medium.
    #[arg(long, value_name = "DATE", num_args = 0..=1, default_missing_value = "today")]
    pub daily: Option<String>,
    /// The computer: a level (easy, medium, hard), a strength (elo=700,
    /// on the rule set's calibration scale) or a spec such as
    /// expectiminimax:depth=2:noise=0.02 (see docs/agents.md).
    #[arg(long, value_name = "SPEC")]
    pub opponent: Option<String>,
    /// The solved table for `--opponent perfect` (from `sawah solve --out`).
    #[arg(long, value_name = "PATH")]
    pub table: Option<String>,
    /// The models folder whose manifest serves easy, medium and hard
    /// (default: ./models, else the models embedded in the binary).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// When the game ends, write its review to FILE (Markdown; JSON or
    /// SVG when FILE ends in .json or .svg), against perfect play with
    /// --table, else hard searching one ply deeper. Without it, the
    /// review is offered at the end.
    #[arg(long, value_name = "FILE")]
    pub review: Option<PathBuf>,
    /// Save the game to FILE as a game record (docs/protocol.md, "Game
    /// records"), or in RGN, RoyalUr's notation, when FILE ends in .rgn;
    /// `sawah review FILE` reads both. Written when the game ends, or when
    /// you leave it (an unfinished record).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// A tutor: before a move that gives away at least --tutor-threshold
    /// points of win probability (by the review's reference: perfect play
    /// with --table, else hard searching one ply deeper), it says what the
    /// move costs, what is better and why; you keep the move or choose again.
    #[arg(long)]
    pub tutor: bool,
    /// The tutor's threshold, in percentage points (default: 3, where a
    /// review starts calling a move a mistake).
    #[arg(long, value_name = "PP", requires = "tutor", default_value_t = sawah_agents::review::MISTAKE_FROM)]
    pub tutor_threshold: f64,
    /// Where an outside bot's stderr goes (DIR/NAME.log).
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
    /// Outside bots (`--bots`) and how they are refereed.
    #[command(flatten)]
    pub outside: sawah_workflows::entrants::OutsideArgs,
}

/// Plays one game on the terminal.
pub fn run(registry: &mut Registry, args: PlayArgs) -> Result<()> {
    let PlayArgs {
        rules,
        side,
        seed,
        daily,
        opponent,
        table,
        models,
        review,
        record,
        tutor,
        tutor_threshold,
        logs,
        outside,
    } = args;
    if tutor && !(tutor_threshold.is_finite() && tutor_threshold >= 0.0) {
        bail!("--tutor-threshold must be a number of percentage points, 0 or more");
    }
    // Checked now: a bad path found after the game would lose it.
    for (flag, path) in [("--review", &review), ("--record", &record)] {
        if let Some(path) = path {
            sawah_workflows::output_path::check_output(path)
                .with_context(|| format!("{flag} {}", path.display()))?;
        }
    }
    let game = registry.resolve(&rules)?;
    if let Some(path) = &record
        && sawah_engine::rgn::is_rgn_file(path)
        && matches!(game, sawah_engine::AnyGame::Senet(_))
    {
        bail!(
            "--record {}: {}",
            path.display(),
            sawah_engine::rgn::senet_unsupported()
        );
    }
    let models = sawah_workflows::models::find(models.as_deref())?;
    let seed_given = seed.is_some();
    let seed = seed.unwrap_or_else(clock_seed);
    let mut options = game::PlayOptions::seeded(side.into(), seed);
    if let Some(date) = daily {
        options.rolls = daily_rolls(&game, &date, opponent.as_deref(), seed_given)?;
    }
    let opponent = opponent.as_deref().unwrap_or("medium").trim();
    options.opponent_name = opponent.to_string();
    let mut entrants = sawah_workflows::entrants::Entrants::new(
        &outside,
        logs,
        models.clone(),
        game.name(),
        table.clone(),
    )?;
    options.opponent = entrants.resolve(opponent).context("--opponent")?;
    // The reference of hints during the game and of the review after it.
    let bot = std::sync::Arc::new(reference_bot(registry, models, table.as_deref())?);
    options.hints = Some(std::sync::Arc::clone(&bot));
    options.tutor = tutor.then_some(tutor_threshold);
    let stdin = io::stdin();
    let played = with_game!(&game, g => game::play_game(g, &options, stdin.lock(), io::stdout()))?;
    let (light, dark) = match options.human {
        Player::Light => ("you".to_string(), options.opponent_name.clone()),
        Player::Dark => (options.opponent_name.clone(), "you".to_string()),
    };
    let game_record = GameFile {
        light: Some(light.clone()),
        dark: Some(dark.clone()),
        ..GameFile::of(Record {
            rules: game.name().to_string(),
            start: None,
            moves: played.moves.clone(),
        })
    };
    if let Some(path) = &record
        && !played.moves.is_empty()
    {
        save_record(registry, path, &game_record)?;
    }
    if played.winner.is_none() {
        return Ok(());
    }
    if review.is_none() && !offered(&mut stdin.lock())? {
        return Ok(());
    }
    let mut reviewed = bot
        .review_record(&game_record.record, None, None)
        .context("the review")?;
    reviewed.players = Some(sawah_agents::review::Players { light, dark });
    match review {
        Some(path) => write_review(&path, &reviewed, &game_record, options.human)?,
        None => print!("{}", short_review(&reviewed, options.human)),
    }
    Ok(())
}

/// The bot that answers hints and the tutor during the game and reviews
/// it after: the models and the solved table the command line names.
fn reference_bot(
    registry: &Registry,
    models: Option<sawah_agents::manifest::Models>,
    table: Option<&str>,
) -> Result<sawah_protocol::Bot> {
    let setup = Setup {
        models,
        tables: table
            .iter()
            .map(|t| TableArg {
                rules: None,
                path: PathBuf::from(t),
            })
            .collect(),
        untrusted: false,
        limits: Limits::NONE,
    };
    sawah_workflows::bots::native_bot(registry.clone(), &setup)
}

/// `--record FILE`: the game record (RGN for a .rgn file), written atomically.
fn save_record(registry: &Registry, path: &std::path::Path, game_record: &GameFile) -> Result<()> {
    let text = if sawah_engine::rgn::is_rgn_file(path) {
        sawah_engine::rgn::from_record(registry, &serde_json::to_value(game_record)?)
            .with_context(|| format!("--record {}", path.display()))?
            + "\n"
    } else {
        serde_json::to_string_pretty(game_record)? + "\n"
    };
    sawah_agents::files::write_atomically(path, text.as_bytes())
        .with_context(|| format!("--record {}", path.display()))?;
    println!(
        "The game is in {} (sawah review {0} reviews it).",
        path.display()
    );
    Ok(())
}

/// `--review FILE`: Markdown, or JSON or SVG by the file's extension.
fn write_review(
    path: &std::path::Path,
    reviewed: &sawah_agents::review::Review,
    game_record: &GameFile,
    human: Player,
) -> Result<()> {
    let text = match path.extension().and_then(|e| e.to_str()) {
        Some("json") => sawah_workflows::review::review_json(reviewed, game_record)?,
        Some("svg") => {
            sawah_eval::study::review::svg(reviewed, human).map_err(anyhow::Error::msg)?
        }
        _ => reviewed.markdown(),
    };
    sawah_agents::files::write_atomically(path, text.as_bytes())
        .with_context(|| format!("--review {}", path.display()))?;
    println!("The review is in {}.", path.display());
    Ok(())
}

/// The rolls of Senet's game of the day for `date` ("today": in UTC),
/// refused for another rule set, another opponent than medium, or a seed.
fn daily_rolls(
    game: &AnyGame,
    date: &str,
    opponent: Option<&str>,
    seed_given: bool,
) -> Result<game::Rolls> {
    if !matches!(game, AnyGame::Senet(_)) {
        bail!("--daily is for senet only: the game of the day is a Senet game");
    }
    if opponent.is_some_and(|o| o != "medium") {
        bail!("the game of the day is played against medium; leave out --opponent");
    }
    if seed_given {
        bail!("the game of the day's throws are the same for everyone; leave out --seed");
    }
    let date = if date == "today" {
        daily::today_utc()
    } else {
        date.to_string()
    };
    let throws = DailyThrows::new(&date)?;
    Ok(game::Rolls::Daily { date, throws })
}

/// Asks whether to review the game; no on end of input.
fn offered(input: &mut impl io::BufRead) -> Result<bool> {
    println!("\nReview the game (your decisions and luck, your costliest moves)? [y/N]");
    let mut line = String::new();
    input.read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

/// The review as the player wants it after a game: their totals and
/// strength, their costly moves, and the luck on both sides.
pub fn short_review(review: &Review, human: Player) -> String {
    use std::fmt::Write as _;
    let mine = review.summary(human);
    let theirs = review.summary(!human);
    let mut out = format!("\nReference: {}.\n", review.reference);
    let _ = writeln!(
        out,
        "You made {} decisions and gave away {:.2} percentage points of win probability per decision ({} best, {} good, {} inaccuracies, {} mistakes, {} blunders); the computer {:.2}.",
        mine.decisions,
        mine.mean_loss_pp,
        mine.best,
        mine.good,
        mine.inaccuracies,
        mine.mistakes,
        mine.blunders,
        theirs.mean_loss_pp
    );
    if let Some(strength) = &mine.strength {
        let _ = writeln!(out, "You {}.", strength.text);
    }
    let _ = writeln!(
        out,
        "Luck: the dice gave you {:+.1} points and the computer {:+.1}.",
        mine.luck_pp + 0.0,
        theirs.luck_pp + 0.0
    );
    let costly: Vec<_> = review
        .turns
        .iter()
        .filter(|t| t.player == human && matches!(t.class, Class::Mistake | Class::Blunder))
        .collect();
    if !costly.is_empty() {
        let _ = writeln!(out, "Your costliest moves:");
        for t in costly {
            let _ = writeln!(
                out,
                "  turn {}: rolled {}, played {}, best was {} ({} of {:.1} points)",
                t.turn,
                t.roll,
                t.played,
                t.best,
                t.class.name(),
                t.loss_pp
            );
        }
    }
    out
}

/// A seed from the clock, for games the player did not seed.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
