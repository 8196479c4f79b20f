//! `sawah`: play, serve the bot protocol, list moves, describe rule sets, benchmark.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use sawah_cli::{bench, bot, play, render};
use sawah_engine::registry::Registry;
use sawah_engine::{Player, notation};
use std::io::{self, BufWriter};
use std::path::PathBuf;
use std::time::Duration;

/// Computer opponents and tools for Sawah's race games (Twenty Squares, the Royal Game of Ur).
#[derive(Parser, Debug)]
#[command(name = "sawah", version, about, long_about = None)]
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

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a game in the terminal against the computer.
    Play {
        /// Rule set name (see `sawah rules`) or rule file path.
        #[arg(long, default_value = "sawah")]
        rules: String,
        /// The side you play (light moves first).
        #[arg(long, value_enum, default_value = "light")]
        side: Side,
        /// Seed for the dice and the computer's choices (default: from the clock; printed).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Serve the JSON-lines bot protocol on stdin/stdout until end of input.
    Bot,
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
    Bench {
        /// Rule sets to measure (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "sawah,ur")]
        rules: Vec<String>,
        /// Seconds per rule set.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Seed for the dice and choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
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
        Command::Play { rules, side, seed } => {
            let rules = registry.resolve(&rules)?;
            let seed = seed.unwrap_or_else(clock_seed);
            let options = play::PlayOptions {
                human: side.into(),
                seed,
            };
            let stdin = io::stdin();
            play::play(&rules, &options, stdin.lock(), io::stdout())?;
        }
        Command::Bot => {
            let server = bot::Bot::new(registry);
            let stdin = io::stdin();
            bot::serve(&server, stdin.lock(), BufWriter::new(io::stdout()))?;
        }
        Command::Moves {
            rules,
            position,
            roll,
            json,
        } => moves(&mut registry, rules.as_deref(), &position, roll, json)?,
        Command::Rules { name, json } => describe_rules(&mut registry, name.as_deref(), json)?,
        Command::Bench {
            rules,
            seconds,
            seed,
        } => {
            if !(seconds.is_finite() && seconds > 0.0) {
                bail!("--seconds must be a positive number, not {seconds}");
            }
            println!("random playouts, one thread, {seconds} s per rule set, seed {seed}");
            for name in rules {
                let rules = registry.resolve(&name)?;
                let result = bench::random_playouts(&rules, seed, Duration::from_secs_f64(seconds));
                println!(
                    "{:<16} {:>10.2} M moves/s  {:>9} games  {:>6.1} moves/game  {:>6.1} rolls/game",
                    result.rules,
                    result.moves_per_second() / 1e6,
                    result.games,
                    result.moves as f64 / result.games as f64,
                    result.plies as f64 / result.games as f64,
                );
            }
        }
    }
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

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn moves(
    registry: &mut Registry,
    rules: Option<&str>,
    position: &str,
    roll: u8,
    json: bool,
) -> Result<()> {
    if let Some(name) = rules {
        registry.resolve(name)?;
    }
    let (rule_set, position) = registry
        .parse_position_text(position)
        .context("cannot read --position")?;
    if let Some(name) = rules {
        let wanted = registry.resolve(name)?;
        if wanted.name() != rule_set.name() {
            bail!(
                "--rules is {} but the position is for {}",
                wanted.name(),
                rule_set.name()
            );
        }
    }
    let max = rule_set.dice().max_roll();
    if roll > max {
        bail!(
            "roll {roll} is out of range: {} rolls run from 0 to {max}",
            rule_set.name()
        );
    }
    if json {
        let request = serde_json::json!({
            "cmd": "legal_moves",
            "position": rule_set.position_to_json(&position),
            "roll": roll,
        });
        println!(
            "{}",
            bot::Bot::new(registry.clone()).handle_line(&request.to_string())
        );
        return Ok(());
    }
    println!("{}", render::board(&rule_set, &position, Player::Light));
    let legal = rule_set.legal_moves(&position, roll);
    let mover = position.turn();
    if legal.is_empty() {
        let next = rule_set.pass(&position);
        println!("{mover} rolls {roll}: no legal move, the turn passes");
        println!(
            "  => {}",
            notation::format(&rule_set.position_to_json(&next))
        );
        return Ok(());
    }
    println!("{mover} rolls {roll}: {} legal move(s)", legal.len());
    for &mv in legal.iter() {
        let outcome = rule_set.apply(&position, mv);
        let mut notes = Vec::new();
        if outcome.captured {
            notes.push("captures");
        }
        if outcome.extra_roll {
            notes.push("rolls again");
        }
        if rule_set.winner(&outcome.position).is_some() {
            notes.push("wins");
        }
        println!(
            "  {:<12} {:<24} => {}",
            render::describe_move(&rule_set, mv),
            notes.join(", "),
            notation::format(&rule_set.position_to_json(&outcome.position))
        );
    }
    Ok(())
}

fn describe_rules(registry: &mut Registry, name: Option<&str>, json: bool) -> Result<()> {
    let Some(name) = name else {
        if json {
            println!("{}", serde_json::json!(registry.names()));
        } else {
            for name in registry.names() {
                let rules = registry.get(&name)?;
                println!("{name:<16} {}", rules.spec().description);
            }
        }
        return Ok(());
    };
    let rules = registry.resolve(name)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&rules.export_json())?);
        return Ok(());
    }
    let marked: Vec<String> = (1..=rules.route_len())
        .filter(|&s| rules.is_marked_square(Player::Light, s))
        .map(|s| s.to_string())
        .collect();
    println!("{}: {}", rules.name(), rules.spec().description);
    println!("  pieces per side: {}", rules.pieces());
    println!(
        "  route: {} squares, borne off on the exact {}th step",
        rules.route_len(),
        rules.off()
    );
    println!(
        "  marks on squares {} ({}{})",
        marked.join(", "),
        if rules.marks_give_extra_roll() {
            "extra roll"
        } else {
            "no extra roll"
        },
        if rules.marks_are_safe() {
            ", safe"
        } else {
            ", not safe"
        },
    );
    let dice: Vec<String> = rules
        .dice()
        .outcomes()
        .map(|(roll, p)| format!("{roll}: {p}"))
        .collect();
    println!("  dice: {}", dice.join(", "));
    println!(
        "\nlight's squares:\n{}",
        render::route_numbers(&rules, Player::Light)
    );
    println!(
        "\ndark's squares:\n{}",
        render::route_numbers(&rules, Player::Dark)
    );
    Ok(())
}
