//! `sawah check-bot`: an outside bot's compliance test, before a tournament.

use anyhow::{Result, bail};
use sawah_engine::registry::Registry;
use sawah_engine::with_game;
use sawah_eval::arena::outside::check::{RulesCheck, check_rules};
use sawah_eval::arena::outside::{BotDefs, OutsideBot};
use sawah_workflows::entrants::OutsideArgs;
use std::path::PathBuf;

/// The arguments of `sawah check-bot`.
#[derive(clap::Args, Debug)]
pub struct CheckBotArgs {
    /// The bot's name in the --bots file.
    pub name: String,
    /// Rule sets to check it on, separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "sawah,ur,masters,senet")]
    pub rules: Vec<String>,
    /// Positions sent per rule set (the edge cases first).
    #[arg(long, default_value_t = 200)]
    pub positions: usize,
    /// Seed of the random games the positions come from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// Where the bot's stderr goes (DIR/NAME.log).
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
    /// Outside bots (`--bots`) and how they are refereed.
    #[command(flatten)]
    pub outside: OutsideArgs,
}

/// Runs the check; fails (exit 1) when any answer was not legal.
pub fn run(registry: &mut Registry, args: CheckBotArgs) -> Result<()> {
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        other => bail!("--format is text or json, not {other:?}"),
    };
    if args.positions == 0 || args.positions > 100_000 {
        bail!(
            "--positions must be from 1 to 100000, not {}",
            args.positions
        );
    }
    let Some(path) = &args.outside.bots else {
        bail!(
            "check-bot needs --bots FILE, the file that defines {}",
            args.name
        );
    };
    let defs = BotDefs::load(path)?;
    let Some(def) = defs.get(&args.name) else {
        bail!(
            "{} is not defined in {}; bots there: {}",
            args.name,
            path.display(),
            defs.names().join(", ")
        );
    };
    let games = args
        .rules
        .iter()
        .map(|name| registry.resolve(name.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let bot = OutsideBot::start(def.clone(), args.outside.referee(args.logs.clone())?)
        .map_err(anyhow::Error::msg)?;
    let reports: Vec<RulesCheck> = games
        .iter()
        .map(|game| with_game!(game, g => check_rules(g, &bot, args.positions, args.seed)))
        .collect();
    let passed = reports.iter().all(RulesCheck::passed);
    if json {
        let report = serde_json::json!({
            "bot": bot.name(),
            "identity": bot.identity(),
            "move_time_ms": bot.referee().move_time.as_millis() as u64,
            "passed": passed,
            "rules": reports,
        });
        println!("{report}");
    } else {
        print_text(&bot, &reports, passed);
    }
    drop(bot);
    if !passed {
        std::process::exit(1);
    }
    Ok(())
}

/// The bot's `hello` identity as one phrase (" (name 1.2 by someone)"),
/// empty fields left out and every field escaped for the terminal.
fn identity_text(bot: &OutsideBot) -> String {
    let Some(identity) = bot.identity() else {
        return " (it did not answer hello)".into();
    };
    let shown = |field: &str| sawah_engine::text::printable(field, 60);
    let mut words: Vec<String> = [&identity.name, &identity.version]
        .into_iter()
        .filter(|field| !field.is_empty())
        .map(|field| shown(field))
        .collect();
    if !identity.author.is_empty() {
        words.push(format!("by {}", shown(&identity.author)));
    }
    if words.is_empty() {
        String::new()
    } else {
        format!(" ({})", words.join(" "))
    }
}

/// `line` wrapped to the terminal's width (continuations indented by
/// `rest`), or whole when standard output is not a terminal.
fn fitted(line: &str, rest: &str) -> String {
    match sawah_workflows::columns::stdout_width() {
        Some(width) => {
            let first: String = line.chars().take_while(|c| *c == ' ').collect();
            sawah_workflows::columns::wrap_to(line.trim_start(), width, &first, rest)
        }
        None => line.to_string(),
    }
}

fn print_text(bot: &OutsideBot, reports: &[RulesCheck], passed: bool) {
    println!(
        "check-bot {}{}, {:.1} s a move",
        bot.name(),
        identity_text(bot),
        bot.referee().move_time.as_secs_f64()
    );
    for r in reports {
        let mut counts = format!("{} of {} legal", r.legal, r.asked);
        for (count, what) in [
            (r.illegal, "illegal"),
            (r.malformed, "malformed"),
            (r.timeouts, "too slow"),
            (r.crashes, "crashes"),
        ] {
            if count > 0 {
                counts.push_str(&format!(", {count} {what}"));
            }
        }
        let edge = if r.edge_cases_passed.is_empty() {
            String::new()
        } else {
            format!("; edge cases passed: {}", r.edge_cases_passed.join(", "))
        };
        let line = format!(
            "  {:<10} {counts}; latency p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms{edge}  {}",
            r.rules,
            r.latency_ms.p50,
            r.latency_ms.p99,
            r.latency_ms.max,
            if r.passed() { "pass" } else { "FAIL" }
        );
        println!("{}", fitted(&line, "             "));
        for problem in &r.problems {
            println!("{}", fitted(&format!("      {problem}"), "        "));
        }
    }
    println!("{}", if passed { "PASS" } else { "FAIL" });
}
