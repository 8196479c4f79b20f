//! `sawah rules NAME --report`: a rule set measured for its designers
//! (`sawah_eval::study::variant`, `docs/variants.md`). Works for any rule set,
//! rule files included: the levels of a rule set the models do not cover
//! are the built-in presets.

use crate::bots::native_bot;
use anyhow::{Context, Result, bail};
use sawah_agents::AgentSpec;
use sawah_agents::table::Table;
use sawah_engine::registry::Registry;
use sawah_engine::{AnyGame, Codec, with_game};
use sawah_eval::arena::matches::MatchResult;
use sawah_eval::study::variant::{SelfPlay, self_play, skill};
use sawah_protocol::messages::{Answer, HintRequest, MoveOrPass, Request, RollTableAnswer};
use sawah_protocol::native::{Limits, Setup, TableArg};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What a variant report measures: the rule set, its games and where its
/// players come from (`sawah rules R --report`'s options).
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The rule set's name or rule file.
    pub rules: String,
    /// Its solved table: the report is exact where it can be, and its games are perfect play.
    pub table: Option<PathBuf>,
    /// Games per measurement (at least 2).
    pub games: u64,
    /// The seed of every game measured.
    pub seed: u64,
    /// The models folder whose levels play (`None`: ./models, else the embedded models).
    pub models: Option<PathBuf>,
}

/// The variant report: what `sawah rules R --report --json` prints and the
/// levels report embeds, and what [`markdown`] writes for people.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantReport {
    /// The rule set.
    pub rules: String,
    /// Its description.
    pub description: String,
    /// The seed of every game measured.
    pub seed: u64,
    /// Games per measurement.
    pub games: u64,
    /// How often the first player wins.
    pub first_player: FirstPlayer,
    /// How much skill matters: the stronger against the weaker.
    pub skill: Vec<SkillMatch>,
    /// How long games last.
    pub length: GameLength,
    /// The share of rolls offering moves that reach different positions.
    pub choice_share: f64,
    /// The share of rolls that pass.
    pub pass_share: f64,
    /// The first roll's table (the protocol's `hint` without a roll).
    pub first_rolls: RollTableAnswer,
}

/// The first player's chance: exact from a table, or measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstPlayer {
    /// Whether it is the table's exact value.
    pub exact: bool,
    /// The chance.
    pub value: f64,
    /// The table (exact only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The table's positions (exact only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<u64>,
    /// The 95% interval's lower end (measured only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Its upper end (measured only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// Who played both sides (measured only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// One skill match: the first agent's score against the second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillMatch {
    /// The stronger agent.
    pub first: String,
    /// The weaker.
    pub second: String,
    /// Games played.
    pub games: u64,
    /// The first agent's score.
    pub score: f64,
    /// Its 95% interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

/// How long games last, in rolls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLength {
    /// Who played both sides.
    pub by: String,
    /// The mean.
    pub mean: f64,
    /// Its 95% interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The standard deviation.
    pub sd: f64,
    /// The 10th, 50th and 90th percentiles.
    pub p10_p50_p90: [u64; 3],
}

/// Measures the rule set: the report ([`markdown`] writes it for people).
pub fn variant_report(registry: &mut Registry, args: &ReportOptions) -> Result<VariantReport> {
    let name = args.rules.as_str();
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
    let (played, matches) = measured;
    let first_player = first_player(exact, &played);
    let description = game.description().to_string();
    let report = VariantReport {
        rules,
        description,
        seed,
        games,
        first_player,
        skill: matches.iter().map(skill_match).collect(),
        length: GameLength {
            by: played.agent.clone(),
            mean: played.rolls.mean,
            low: played.rolls.low,
            high: played.rolls.high,
            sd: played.rolls_sd,
            p10_p50_p90: played.rolls_percentiles,
        },
        choice_share: played.choice_share,
        pass_share: played.pass_share,
        first_rolls,
    };
    Ok(report)
}

/// The first player's chance: the table's exact value of the start when
/// there is a table (its path, value and positions), else self-play's.
fn first_player(exact: Option<(PathBuf, f64, u64)>, played: &SelfPlay) -> FirstPlayer {
    match exact {
        Some((path, value, states)) => FirstPlayer {
            exact: true,
            value,
            table: Some(path.display().to_string()),
            states: Some(states),
            low: None,
            high: None,
            by: None,
        },
        None => FirstPlayer {
            exact: false,
            value: played.first_player_wins.mean,
            table: None,
            states: None,
            low: Some(played.first_player_wins.low),
            high: Some(played.first_player_wins.high),
            by: Some(played.agent.clone()),
        },
    }
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

fn skill_match(result: &MatchResult) -> SkillMatch {
    let score = result.score();
    SkillMatch {
        first: result.first.clone(),
        second: result.second.clone(),
        games: result.games(),
        score: score.mean,
        low: score.low,
        high: score.high,
    }
}

fn pct(value: f64) -> String {
    format!("{:.2}%", 100.0 * value)
}

/// The report for people.
pub fn markdown(report: &VariantReport) -> String {
    let mut out = format!("# {}\n\n{}\n\n", report.rules, report.description);
    let first = &report.first_player;
    let or_nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
    if first.exact {
        out += &format!(
            "* First player's win probability: {} (exact to the table's single precision, {:.5}%, by {} over {} positions)\n",
            pct(first.value),
            100.0 * first.value,
            first.table.as_deref().unwrap_or("?"),
            first.states.map_or("null".to_string(), |s| s.to_string())
        );
    } else {
        out += &format!(
            "* First player's win probability: {} ({} to {}, {} games of {} against itself)\n",
            pct(first.value),
            pct(or_nan(first.low)),
            pct(or_nan(first.high)),
            report.games,
            first.by.as_deref().unwrap_or("?")
        );
    }
    for m in &report.skill {
        out += &format!(
            "* {} against {}: scores {} ({} to {}) over {} paired games\n",
            m.first,
            m.second,
            pct(m.score),
            pct(m.low),
            pct(m.high),
            m.games
        );
    }
    let length = &report.length;
    out += &format!(
        "* Game length ({} against itself): {:.1} rolls on average ({:.1} to {:.1}), standard deviation {:.1}; 10th, 50th and 90th percentiles {}\n",
        length.by,
        length.mean,
        length.low,
        length.high,
        length.sd,
        serde_json::to_string(&length.p10_p50_p90).unwrap_or_default()
    );
    out += &format!(
        "* Real choices: {} of rolls offer moves reaching different positions; {} of rolls pass\n",
        pct(report.choice_share),
        pct(report.pass_share)
    );
    let table = &report.first_rolls;
    out += &format!(
        "\nThe first roll (by {}):\n\n| roll | chance | first player wins after the best move | best move |\n|---:|---:|---:|---|\n",
        table.reference
    );
    for row in &table.rolls {
        let best = match &row.mv {
            MoveOrPass::Move(m) => format!("{} → {}", m.from, m.to),
            MoveOrPass::Pass(_) => "pass".to_string(),
        };
        out += &format!(
            "| {} | {} | {} | {} |\n",
            row.roll,
            pct(row.probability),
            pct(row.value),
            best
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_protocol::messages::{Pass, RollChance};

    fn report(first_player: FirstPlayer) -> VariantReport {
        VariantReport {
            rules: "ur-2".into(),
            description: "tiny".into(),
            seed: 1,
            games: 100,
            first_player,
            skill: vec![SkillMatch {
                first: "hard".into(),
                second: "random".into(),
                games: 100,
                score: 0.8,
                low: 0.72,
                high: 0.88,
            }],
            length: GameLength {
                by: "hard".into(),
                mean: 30.5,
                low: 29.0,
                high: 32.0,
                sd: 8.0,
                p10_p50_p90: [20, 30, 41],
            },
            choice_share: 0.4,
            pass_share: 0.1,
            first_rolls: RollTableAnswer {
                rolls: vec![RollChance {
                    roll: 0,
                    probability: 0.0625,
                    value: 0.4,
                    mv: MoveOrPass::Pass(Pass::Pass),
                }],
                value: 0.5,
                reference: "hard".into(),
                exact: false,
            },
        }
    }

    /// The levels build keeps the report in its stage record and reads it
    /// back on a rerun; the fields an exact or a measured first-player
    /// chance leaves out stay out, in the order the report always had.
    #[test]
    fn the_report_reads_back_and_writes_only_its_own_fields() {
        let exact = report(FirstPlayer {
            exact: true,
            value: 0.52,
            table: Some("ur-2.sawah".into()),
            states: Some(13111),
            low: None,
            high: None,
            by: None,
        });
        let measured = report(FirstPlayer {
            exact: false,
            value: 0.55,
            table: None,
            states: None,
            low: Some(0.5),
            high: Some(0.6),
            by: Some("hard".into()),
        });
        for (report, first) in [
            (
                exact,
                r#""first_player":{"exact":true,"value":0.52,"table":"ur-2.sawah","states":13111}"#,
            ),
            (
                measured,
                r#""first_player":{"exact":false,"value":0.55,"low":0.5,"high":0.6,"by":"hard"}"#,
            ),
        ] {
            let text = serde_json::to_string(&report).unwrap();
            assert!(
                text.starts_with(r#"{"rules":"ur-2","description":"tiny","seed":1,"games":100,"#),
                "{text}"
            );
            assert!(text.contains(first), "{text}");
            assert_eq!(
                serde_json::from_str::<VariantReport>(&text).unwrap(),
                report
            );
            assert!(markdown(&report).contains("| 0 | 6.25% | 40.00% | pass |"));
        }
    }
}
