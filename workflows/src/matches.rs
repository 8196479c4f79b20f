//! `sawah match`: two agents, paired dice, the first one's score.

use crate::entrants::{Entrants, OutsideArgs};
use crate::luck::LuckArgs;
use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use sawah_engine::with_game;
use sawah_eval::arena::matches::{play_match, play_match_with_luck_observed};
use sawah_eval::stats::elo_from_score;
use std::path::PathBuf;

/// The arguments of `sawah match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The first agent (spec or preset).
    pub first: String,
    /// The second agent (spec or preset).
    pub second: String,
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    pub rules: String,
    /// Games to play (rounded up to whole pairs).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// Seed for the dice of every pair (and the agents' choices).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The shipped models' folder, where levels (easy, medium, hard)
    /// resolve; default: ./models, then the models embedded in the binary.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// A solved table: the one `perfect` agents play from when their spec
    /// names none.
    #[arg(long, value_name = "PATH")]
    pub table: Option<String>,
    /// Where outside bots' stderr goes (DIR/NAME.log); without it, it is
    /// dropped (its last lines are still quoted when a bot fails).
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
    /// Outside bots (`--bots`) and how they are refereed.
    #[command(flatten)]
    pub outside: OutsideArgs,
    /// Luck adjustment (`--luck-adjusted`, `--reference`).
    #[command(flatten)]
    pub luck: LuckArgs,
}

/// A match as played: the rule set, the agents as typed and what they
/// resolved to, and the result.
pub struct Played {
    /// The rule set's name.
    pub rules: String,
    /// The agents as typed, with their portable specs.
    pub agents: [(String, String); 2],
    /// The result.
    pub result: sawah_eval::arena::matches::MatchResult,
}

/// Plays the match `args` asks for; a luck-adjusted one tells `observe`
/// the pairs played so far.
///
/// # Examples
///
/// A match as a library call, no command line: 40 paired games of the
/// heuristic against random play on ur.
///
/// ```
/// use sawah_engine::registry::Registry;
/// use sawah_workflows::matches::{MatchArgs, play};
///
/// let args = MatchArgs {
///     first: "heuristic".into(),
///     second: "random".into(),
///     rules: "ur".into(),
///     games: 40,
///     seed: 1,
///     models: None,
///     table: None,
///     logs: None,
///     outside: Default::default(),
///     luck: Default::default(),
/// };
/// let played = play(&mut Registry::new(), args, &|_| {})?;
/// assert_eq!(played.result.games(), 40);
/// assert!(played.result.score().mean > 0.6, "{:?}", played.result.score());
/// # Ok::<(), anyhow::Error>(())
/// ```
pub fn play(
    registry: &mut Registry,
    args: MatchArgs,
    observe: &(dyn Fn(u64) + Sync),
) -> Result<Played> {
    let MatchArgs {
        first,
        second,
        rules,
        games,
        seed,
        models,
        table,
        logs,
        outside,
        luck,
    } = args;
    if games == 0 || games > 100_000_000 {
        bail!("--games must be from 1 to 100000000, not {games}");
    }
    let game = registry.resolve(&rules)?;
    let meter = luck.meter(registry, game.name(), &models, table.as_deref())?;
    let models = crate::models::find(models.as_deref())?;
    let mut entrants = Entrants::new(&outside, logs, models, game.name(), table)?;
    // Agents are shown as typed (`hard`), with what they resolved to below.
    let (first_name, second_name) = (first.trim(), second.trim());
    let first_entrant = entrants.resolve(first_name).context("first agent")?;
    let second_entrant = entrants.resolve(second_name).context("second agent")?;
    if let (Some(a), Some(b)) = (first_entrant.spec(), second_entrant.spec())
        && a == b
    {
        eprintln!(
            "warning: both agents are {} with the same seed: each pair's two games mirror each other, so the score is 0.5 by construction; give one a different seed (for example {second_name}:seed=2) to compare an agent with itself",
            a.portable()
        );
    }
    let result = with_game!(&game, g => match &meter {
        None => play_match(g, &first_entrant, &second_entrant, games, seed)?,
        Some(meter) => play_match_with_luck_observed(
            g,
            &first_entrant,
            &second_entrant,
            games,
            seed,
            meter,
            observe,
        )?,
    });
    Ok(Played {
        rules: game.name().to_string(),
        agents: [
            (first_name.to_string(), first_entrant.portable()),
            (second_name.to_string(), second_entrant.portable()),
        ],
        result,
    })
}

/// Plays the match and prints the score with its interval.
pub fn run(registry: &mut Registry, args: MatchArgs) -> Result<()> {
    let seed = args.seed;
    let Played {
        rules,
        agents,
        result,
    } = play(registry, args, &|_| {})?;
    let [(first_name, first_spec), (second_name, second_spec)] = &agents;
    let score = result.score();
    println!(
        "{first_name} vs {second_name} on {rules}: {} games ({} pairs, paired dice, seed {seed})",
        result.games(),
        result.pair_scores.len()
    );
    for (name, spec) in [(first_name, first_spec), (second_name, second_spec)] {
        if spec != name {
            println!("  {name} = {spec}");
        }
    }
    println!(
        "  {first_name} wins {}, {second_name} wins {}, stopped {}; light (first to move) won {}; {:.1} rolls/game",
        result.first_wins, result.second_wins, result.stopped, result.light_wins, result.mean_rolls
    );
    if result.forfeits > 0 {
        println!(
            "  {} games ended by forfeit (an agent failed: crashed, timed out, answered garbage or an illegal move)",
            result.forfeits
        );
    }
    println!(
        "  score {:.3} (95% CI {:.3} to {:.3}), Elo difference {} ({} to {})",
        score.mean,
        score.low,
        score.high,
        signed_elo(score.mean),
        signed_elo(score.low),
        signed_elo(score.high)
    );
    if let (Some(adjusted), Some(reference)) = (result.adjusted_score(), &result.luck_reference) {
        println!(
            "  luck-adjusted score {:.4} (95% CI {:.4} to {:.4}), Elo difference {} ({} to {}); luck measured by {reference}",
            adjusted.mean,
            adjusted.low,
            adjusted.high,
            signed_elo_tenths(adjusted.mean),
            signed_elo_tenths(adjusted.low),
            signed_elo_tenths(adjusted.high)
        );
        let (raw, narrow) = (score.high - score.low, adjusted.high - adjusted.low);
        if narrow > 0.0 {
            println!(
                "  the adjusted interval is {:.1}× narrower: as wide as the raw one would be after about {:.0}× the games",
                raw / narrow,
                (raw / narrow).powi(2)
            );
        }
    }
    Ok(())
}

/// The Elo difference of a score, rounded and signed, never `-0`.
fn signed_elo(score: f64) -> String {
    // Adding 0.0 turns -0.0 into 0.0.
    format!("{:+.0}", elo_from_score(score).round() + 0.0)
}

/// [`signed_elo`] to a tenth: an adjusted interval is often narrower than
/// one Elo point.
fn signed_elo_tenths(score: f64) -> String {
    format!(
        "{:+.1}",
        (elo_from_score(score) * 10.0).round() / 10.0 + 0.0
    )
}
