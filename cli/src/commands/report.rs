//! `sawah rules NAME --report`: a rule set measured for its designers
//! (`sawah_eval::study::variant`, `docs/variants.md`). Works for any rule set,
//! rule files included: the levels of a rule set the models do not cover
//! are the built-in presets.

use crate::commands::bot::lines::native_bot;
use crate::commands::describe::RulesArgs;
use anyhow::{Context, Result, bail};
use sawah_agents::AgentSpec;
use sawah_agents::table::Table;
use sawah_engine::registry::Registry;
use sawah_engine::{AnyGame, Codec, with_game};
use sawah_eval::arena::matches::MatchResult;
use sawah_eval::study::variant::{SelfPlay, self_play, skill};
use sawah_protocol::messages::{Answer, HintRequest, Request};
use sawah_protocol::native::{Limits, Setup, TableArg};
use serde_json::{Value, json};

/// Measures the rule set and prints the report.
pub fn run(registry: &mut Registry, args: &RulesArgs) -> Result<()> {
    let report = variant_report(registry, args)?;
    if args.json {
        println!("{report}");
    } else {
        print!("{}", markdown(&report));
    }
    Ok(())
}

/// Measures the rule set: the report as JSON (`markdown` writes it for
/// people).
pub fn variant_report(registry: &mut Registry, args: &RulesArgs) -> Result<Value> {
    let name = args.name.as_deref().context("--report needs a rule set")?;
    let game = registry.resolve(name)?;
    let rules = game.name().to_string();
    if args.games < 2 {
        bail!("--games must be at least 2");
    }
    if args.table.is_some() && matches!(game, AnyGame::Senet(_)) {
        bail!(
            "--table: Senet is not solved whole (its endgame tables cover the end only); leave out --table"
        );
    }
    let models = crate::models::find(args.models.as_deref())?;
    let level = |text: &str| {
        crate::models::spec_of(&models, text, &rules).with_context(|| text.to_string())
    };
    let (hard, easy, random) = (level("hard")?, level("easy")?, level("random")?);
    let exact = match (&args.table, &game) {
        (Some(path), AnyGame::Race(race)) => {
            let table = Table::open(path, race).with_context(|| path.display().to_string())?;
            Some((
                path.clone(),
                table.value(&race.start()),
                table.info().states,
            ))
        }
        _ => None,
    };
    let perfect = match &exact {
        Some((path, _, _)) => Some(level(&format!("perfect:table={}", path.display()))?),
        None => None,
    };
    let player = perfect.clone().unwrap_or_else(|| hard.clone());
    let (seed, games) = (args.seed, args.games);
    let measured = with_game!(&game, g => measure(g, &player, (&hard, &easy, &random, perfect.as_ref()), games, seed))?;
    let setup = Setup {
        models: models.clone(),
        tables: args
            .table
            .iter()
            .map(|path| TableArg {
                rules: None,
                path: path.clone(),
            })
            .collect(),
        untrusted: false,
        limits: Limits::NONE,
    };
    let bot = native_bot(registry.clone(), &setup)?;
    let start = with_game!(&game, g => g.position_to_json(&g.start()));
    let first_rolls = Request::Hint(HintRequest {
        position: start,
        roll: None,
        bot: None,
    });
    let first_rolls = match bot.answer(first_rolls, None) {
        Ok(Answer::RollTable(table)) => table,
        Ok(_) => bail!("the first rolls: the hint answered with another answer"),
        Err(error) => bail!("the first rolls: {}", error.message),
    };
    let report = json!({
        "rules": rules,
        "description": with_game!(&game, g => g.export_json()["description"].clone()),
        "seed": seed,
        "games": games,
        "first_player": match &exact {
            Some((path, value, states)) => json!({
                "exact": true, "value": value, "table": path.display().to_string(), "states": states,
            }),
            None => json!({
                "exact": false,
                "value": measured.0.first_player_wins.mean,
                "low": measured.0.first_player_wins.low,
                "high": measured.0.first_player_wins.high,
                "by": measured.0.agent,
            }),
        },
        "skill": measured.1.iter().map(match_json).collect::<Vec<_>>(),
        "length": {
            "by": measured.0.agent,
            "mean": measured.0.rolls.mean,
            "low": measured.0.rolls.low,
            "high": measured.0.rolls.high,
            "sd": measured.0.rolls_sd,
            "p10_p50_p90": measured.0.rolls_percentiles,
        },
        "choice_share": measured.0.choice_share,
        "pass_share": measured.0.pass_share,
        "first_rolls": first_rolls,
    });
    Ok(report)
}

/// The self-play games and the skill matches.
fn measure<G>(
    game: &G,
    player: &AgentSpec,
    (hard, easy, random, perfect): (&AgentSpec, &AgentSpec, &AgentSpec, Option<&AgentSpec>),
    games: u64,
    seed: u64,
) -> Result<(SelfPlay, Vec<MatchResult>)>
where
    G: Codec + sawah_agents::HasHeuristic + Sync + 'static,
{
    let played = self_play(game, player, games, seed)?;
    let mut matches = Vec::new();
    if let Some(perfect) = perfect {
        matches.push(skill(game, perfect, random, games, seed)?);
        matches.push(skill(game, hard, perfect, games, seed)?);
    }
    matches.push(skill(game, hard, random, games, seed)?);
    matches.push(skill(game, hard, easy, games, seed)?);
    Ok((played, matches))
}

fn match_json(result: &MatchResult) -> Value {
    let score = result.score();
    json!({
        "first": result.first, "second": result.second, "games": result.games(),
        "score": score.mean, "low": score.low, "high": score.high,
    })
}

fn pct(value: &Value) -> String {
    format!("{:.2}%", 100.0 * value.as_f64().unwrap_or(f64::NAN))
}

/// The report for people.
pub fn markdown(report: &Value) -> String {
    let mut out = format!(
        "# {}\n\n{}\n\n",
        report["rules"].as_str().unwrap_or("?"),
        report["description"].as_str().unwrap_or("")
    );
    let first = &report["first_player"];
    if first["exact"] == true {
        out += &format!(
            "* First player's win probability: {} (exact to the table's single precision, {:.5}%, by {} over {} positions)\n",
            pct(&first["value"]),
            100.0 * first["value"].as_f64().unwrap_or(f64::NAN),
            first["table"].as_str().unwrap_or("?"),
            first["states"]
        );
    } else {
        out += &format!(
            "* First player's win probability: {} ({} to {}, {} games of {} against itself)\n",
            pct(&first["value"]),
            pct(&first["low"]),
            pct(&first["high"]),
            report["games"],
            first["by"].as_str().unwrap_or("?")
        );
    }
    for m in report["skill"].as_array().into_iter().flatten() {
        out += &format!(
            "* {} against {}: scores {} ({} to {}) over {} paired games\n",
            m["first"].as_str().unwrap_or("?"),
            m["second"].as_str().unwrap_or("?"),
            pct(&m["score"]),
            pct(&m["low"]),
            pct(&m["high"]),
            m["games"]
        );
    }
    let length = &report["length"];
    out += &format!(
        "* Game length ({} against itself): {:.1} rolls on average ({:.1} to {:.1}), standard deviation {:.1}; 10th, 50th and 90th percentiles {}\n",
        length["by"].as_str().unwrap_or("?"),
        length["mean"].as_f64().unwrap_or(f64::NAN),
        length["low"].as_f64().unwrap_or(f64::NAN),
        length["high"].as_f64().unwrap_or(f64::NAN),
        length["sd"].as_f64().unwrap_or(f64::NAN),
        length["p10_p50_p90"]
    );
    out += &format!(
        "* Real choices: {} of rolls offer moves reaching different positions; {} of rolls pass\n",
        pct(&report["choice_share"]),
        pct(&report["pass_share"])
    );
    let table = &report["first_rolls"];
    out += &format!(
        "\nThe first roll (by {}):\n\n| roll | chance | first player wins after the best move | best move |\n|---:|---:|---:|---|\n",
        table["reference"].as_str().unwrap_or("?")
    );
    for row in table["rolls"].as_array().into_iter().flatten() {
        let best = match &row["move"] {
            Value::Object(m) => format!("{} → {}", m["from"], m["to"]),
            _ => "pass".to_string(),
        };
        out += &format!(
            "| {} | {} | {} | {} |\n",
            row["roll"],
            pct(&row["probability"]),
            pct(&row["value"]),
            best.replace('"', "")
        );
    }
    out
}
