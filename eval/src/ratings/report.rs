//! Elo tables from game records: Bradley–Terry ratings with intervals,
//! written as Markdown, CSV, JSON and an SVG chart.

use crate::arena::results::GameRecord;
use crate::ratings::adjusted::{AdjustedError, AdjustedFit, fit_adjusted};
use crate::ratings::bradley_terry::{self, FitError, FitOptions, GameTable};
use crate::ratings::crosstable::Crosstable;
use crate::stats::Z95;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// One agent's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The agent's spec.
    pub agent: String,
    /// Rating in Elo.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub ci_low: f64,
    /// Upper end of the 95% interval.
    pub ci_high: f64,
    /// Games played.
    pub games: u64,
    /// Points per game (a stopped game is half a point).
    pub score: f64,
    /// Games won.
    pub wins: u64,
    /// Games lost to an agent failure (crash or illegal move) of its own.
    pub failures: u64,
    /// Likelihood of superiority over the next agent down the table.
    pub los_next: Option<f64>,
    /// Mean win probability lost per move against perfect play (real
    /// choices only), where a solved table was given, in percentage points
    /// (as in every format: 1.0 is one point of win probability).
    pub loss_per_move_pp: Option<f64>,
    /// The rating fitted on luck-adjusted scores, in a luck-adjusted table.
    pub adjusted: Option<AdjustedRow>,
}

/// One agent's rating on luck-adjusted scores.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdjustedRow {
    /// Rating in Elo.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub ci_low: f64,
    /// Upper end of the 95% interval.
    pub ci_high: f64,
    /// Mean luck-adjusted score per game.
    pub score: f64,
    /// Likelihood of superiority over the next agent down the table.
    pub los_next: Option<f64>,
}

/// What a luck-adjusted table says of its adjusted fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LuckSummary {
    /// The reference that measured the luck.
    pub reference: String,
    /// The advantage of moving first in Elo on adjusted scores, with its
    /// 95% interval.
    pub first_move_elo: (f64, f64, f64),
    /// Virtual drawn games per pairing in the adjusted fit.
    pub prior: f64,
    /// The share of its luck each pairing took out (β: 1 all of it, as
    /// `sawah match` does; 0 none), by agent names.
    pub shares: Vec<(String, String, f64)>,
    /// How the adjusted intervals were computed.
    pub method: String,
}

/// A whole table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EloTable {
    /// The rule set.
    pub rules: String,
    /// Rows, strongest first.
    pub rows: Vec<Row>,
    /// The advantage of moving first in Elo, with its 95% interval.
    pub first_move_elo: (f64, f64, f64),
    /// Games in the table.
    pub games: u64,
    /// The anchor agent and its fixed rating.
    pub anchor: (String, f64),
    /// The agents of known rating the scale was set by, with their known
    /// ratings (empty: the anchor set it).
    pub scale: Vec<(String, f64)>,
    /// The agents whose mean the intervals are relative to: the known
    /// agents, the anchor alone (given by name), or every agent.
    pub interval_reference: Vec<String>,
    /// Virtual drawn games per pairing.
    pub prior: f64,
    /// How the intervals were computed.
    pub method: String,
    /// The fit on luck-adjusted scores, in a luck-adjusted table (rows are
    /// then ordered by it).
    pub luck: Option<LuckSummary>,
    /// Every pairing head to head (a gauntlet's first agent's first).
    pub crosstable: Crosstable,
    /// Each agent's forfeits by kind, with the first message of each.
    pub forfeits: Vec<crate::ratings::forfeits::AgentForfeits>,
}

/// How to anchor and regularise.
#[derive(Clone, Debug, PartialEq)]
pub struct TableOptions {
    /// The anchor's name (or `None` for the first agent) and its rating.
    pub anchor: (Option<String>, f64),
    /// Virtual drawn games per pairing.
    pub prior: f64,
    /// Also fit on luck-adjusted scores, the luck measured by the reference
    /// named here (every game must carry its luck).
    pub luck_reference: Option<String>,
    /// Agents of known rating (the shipped levels at their ratings in the
    /// models' manifest): when any plays, the ratings are shifted so that
    /// their mean matches these agents' known mean (the anchor then only
    /// fixes the differences).
    pub known: Vec<(String, f64)>,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            anchor: (Some("random".to_string()), 0.0),
            prior: 2.0,
            luck_reference: None,
            known: Vec::new(),
        }
    }
}

/// Why no Elo table could be made.
#[derive(Debug, thiserror::Error)]
pub enum EloTableError {
    /// No games.
    #[error("no games to rate")]
    NoGames,
    /// The anchor is not an agent of these games.
    #[error("the anchor {0:?} played no game here; agents: {1}")]
    UnknownAnchor(String, String),
    /// The fit failed.
    #[error("{0}")]
    Fit(String),
    /// The luck-adjusted fit failed.
    #[error("luck-adjusted ratings: {0}")]
    Adjusted(#[from] AdjustedError),
}

/// The agents of `games`, in the order given by `order` first, then in
/// order of first appearance.
pub fn agents_of(games: &[GameRecord], order: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let played: std::collections::HashSet<&str> = games
        .iter()
        .flat_map(|g| [g.light.as_str(), g.dark.as_str()])
        .collect();
    for name in order {
        if played.contains(name.as_str()) && !names.contains(name) {
            names.push(name.clone());
        }
    }
    for g in games {
        for name in [&g.light, &g.dark] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// Rates the agents of `games`. `loss` gives each agent's mean loss per
/// move where known.
pub fn elo_table(
    rules: &str,
    games: &[GameRecord],
    order: &[String],
    options: &TableOptions,
    loss: &HashMap<String, f64>,
) -> Result<EloTable, EloTableError> {
    if games.is_empty() {
        return Err(EloTableError::NoGames);
    }
    let names = agents_of(games, order);
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let counts = Counts::of(games, &index);
    let anchor = match &options.anchor.0 {
        // The fit fixes one agent; the scale and the intervals are then
        // set by the agents' mean (`fit_all`).
        None => 0,
        Some(name) => match index.get(name.as_str()) {
            Some(&i) => i,
            None => {
                return Err(EloTableError::UnknownAnchor(name.clone(), names.join(", ")));
            }
        },
    };
    let fit_options = FitOptions {
        prior: options.prior,
        anchor,
        anchor_elo: options.anchor.1,
    };
    let (fitted, adjusted, scale, reference) =
        fit_all(games, &counts, &index, &names, options, fit_options)?;
    let ranking = adjusted.as_ref().map_or(&fitted, |a| &a.ratings);
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| ranking.elo[b].total_cmp(&ranking.elo[a]));
    let rows: Vec<Row> = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let next = order.get(rank + 1).copied();
            let (ci_low, ci_high) = fitted.interval(i);
            let played = counts.table.games_of(i);
            Row {
                agent: names[i].clone(),
                elo: fitted.elo[i],
                ci_low,
                ci_high,
                games: played as u64,
                score: if played > 0.0 {
                    counts.table.points_of(i) / played
                } else {
                    0.0
                },
                wins: counts.wins[i],
                failures: counts.failures[i],
                los_next: next.map(|j| fitted.los(i, j)),
                loss_per_move_pp: loss.get(&names[i]).map(|l| 100.0 * l),
                adjusted: adjusted.as_ref().map(|a| {
                    let (ci_low, ci_high) = a.ratings.interval(i);
                    AdjustedRow {
                        elo: a.ratings.elo[i],
                        ci_low,
                        ci_high,
                        score: a.scores[i],
                        los_next: next.map(|j| a.ratings.los(i, j)),
                    }
                }),
            }
        })
        .collect();
    let crosstable = Crosstable::of(games, &crosstable_order(games, &rows));
    Ok(EloTable {
        rules: rules.to_string(),
        crosstable,
        forfeits: crate::ratings::forfeits::of(games),
        rows,
        first_move_elo: first_move(&fitted),
        games: games.len() as u64,
        anchor: (names[anchor].clone(), fitted.elo[anchor]),
        scale: scale.iter().map(|&(i, elo)| (names[i].clone(), elo)).collect(),
        interval_reference: reference.iter().map(|&(i, _)| names[i].clone()).collect(),
        prior: options.prior,
        method: "maximum-likelihood Bradley–Terry (MM, Hunter 2004) with a first-move term; 95% intervals from the inverse Hessian with the anchor fixed, games treated as independent (conservative for paired dice)".into(),
        luck: adjusted.map(|a| LuckSummary {
            reference: options.luck_reference.clone().unwrap_or_default(),
            first_move_elo: first_move(&a.ratings),
            prior: a.prior,
            shares: a.shares,
            method: "the same model fitted to luck-adjusted scores (a quasi-likelihood), each pairing taking out the share of its luck that leaves the least spread (a control variate); 95% intervals from the spread of the adjusted results, the two games of a pair as one cluster (sandwich covariance, Liang and Zeger 1986)".into(),
        }),
    })
}

/// The raw fit and, with a luck reference, the adjusted one, both on the
/// scale of the agents of known rating when any played (with them), and
/// the agents (with their ratings) whose mean the scale and every interval
/// are relative to: the known agents; else the anchor, when one was given
/// by name; else every agent, their mean at 0.
#[allow(clippy::type_complexity)]
fn fit_all(
    games: &[GameRecord],
    counts: &Counts,
    index: &HashMap<&str, usize>,
    names: &[String],
    options: &TableOptions,
    fit_options: FitOptions,
) -> Result<
    (
        bradley_terry::Ratings,
        Option<AdjustedFit>,
        Vec<(usize, f64)>,
        Vec<(usize, f64)>,
    ),
    EloTableError,
> {
    let mut fitted =
        bradley_terry::fit(&counts.table, fit_options).map_err(|e| fit_error(e, names))?;
    let mut adjusted = match &options.luck_reference {
        None => None,
        Some(_) => Some(
            fit_adjusted(games, index, fit_options).map_err(|e| match e {
                AdjustedError::Fit(e) => fit_error(e, names),
                other => other.into(),
            })?,
        ),
    };
    let scale: Vec<(usize, f64)> = options
        .known
        .iter()
        .filter_map(|(name, elo)| index.get(name.as_str()).map(|&i| (i, *elo)))
        .collect();
    let reference = if !scale.is_empty() {
        scale.clone()
    } else if options.anchor.0.is_some() {
        vec![(fit_options.anchor, fit_options.anchor_elo)]
    } else {
        (0..names.len()).map(|i| (i, 0.0)).collect()
    };
    relative_to(&mut fitted, &reference);
    if let Some(a) = adjusted.as_mut() {
        relative_to(&mut a.ratings, &reference);
    }
    Ok((fitted, adjusted, scale, reference))
}

/// Puts `ratings` on the scale of `reference` (agent, rating): every
/// rating shifted so that the mean over the reference agents matches
/// their mean, and every standard error made that of the agent's rating
/// less the reference agents' mean,
/// `Var(x_i − m) = C_ii − 2·mean_k C_ik + mean_kl C_kl`: an agent of the reference shows the uncertainty the
/// others give it, and only a reference of one agent (the anchor) is
/// exact. The differences between agents, and so the likelihoods of
/// superiority, do not change.
fn relative_to(ratings: &mut bradley_terry::Ratings, reference: &[(usize, f64)]) {
    if reference.is_empty() {
        return;
    }
    let k = reference.len() as f64;
    let shift = reference
        .iter()
        .map(|&(i, elo)| elo - ratings.elo[i])
        .sum::<f64>()
        / k;
    for elo in &mut ratings.elo {
        *elo += shift;
    }
    let c = &ratings.covariance;
    let among: f64 = reference
        .iter()
        .flat_map(|&(a, _)| reference.iter().map(move |&(b, _)| c[a][b]))
        .sum::<f64>()
        / (k * k);
    for (i, (se, row)) in ratings.elo_se.iter_mut().zip(c).enumerate() {
        let with: f64 = reference.iter().map(|&(a, _)| row[a]).sum::<f64>() / k;
        *se = (row[i] - 2.0 * with + among).max(0.0).sqrt();
    }
}

/// The crosstable's order: the table's (strongest first), but an agent that
/// played every game (a gauntlet's first agent) first.
fn crosstable_order(games: &[GameRecord], rows: &[Row]) -> Vec<String> {
    let mut order: Vec<String> = rows.iter().map(|r| r.agent.clone()).collect();
    if order.len() > 2
        && let Some(k) = order
            .iter()
            .position(|name| games.iter().all(|g| g.light == *name || g.dark == *name))
    {
        let first = order.remove(k);
        order.insert(0, first);
    }
    order
}

/// The first-move advantage in Elo with its 95% interval.
fn first_move(ratings: &bradley_terry::Ratings) -> (f64, f64, f64) {
    let half = Z95 * ratings.first_move_se;
    (
        ratings.first_move_elo,
        ratings.first_move_elo - half,
        ratings.first_move_elo + half,
    )
}

/// The raw results of a set of games, by agent.
struct Counts {
    table: GameTable,
    wins: Vec<u64>,
    failures: Vec<u64>,
}

impl Counts {
    fn of(games: &[GameRecord], index: &HashMap<&str, usize>) -> Counts {
        let n = index.len();
        let mut counts = Counts {
            table: GameTable::new(n),
            wins: vec![0; n],
            failures: vec![0; n],
        };
        for g in games {
            let (l, d) = (index[g.light.as_str()], index[g.dark.as_str()]);
            counts.table.add(l, d, g.light_score());
            match g.winner {
                Some(sawah_engine::Player::Light) => counts.wins[l] += 1,
                Some(sawah_engine::Player::Dark) => counts.wins[d] += 1,
                None => {}
            }
            if let Some(f) = &g.failure {
                counts.failures[match f.seat {
                    sawah_engine::Player::Light => l,
                    sawah_engine::Player::Dark => d,
                }] += 1;
            }
        }
        counts
    }
}

/// A fit's failure, with agents named.
fn fit_error(error: FitError, names: &[String]) -> EloTableError {
    match error {
        FitError::Disconnected { groups } => EloTableError::Fit(format!(
            "the agents fall into groups that never met, so their ratings cannot be compared: {}",
            groups
                .iter()
                .map(|g| format!(
                    "[{}]",
                    g.iter()
                        .map(|&i| names[i].as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
        other => EloTableError::Fit(other.to_string()),
    }
}

impl EloTable {
    /// How the scale was set, in a sentence for the table's foot.
    pub fn scale_text(&self) -> String {
        if !self.scale.is_empty() {
            let known: Vec<String> = self
                .scale
                .iter()
                .map(|(name, elo)| format!("{name} {elo:.0}"))
                .collect();
            return format!(
                "Scale: the shipped levels at their ratings in the models' manifest ({}), the ratings shifted so that their mean matches; each interval is relative to that mean (`--anchor NAME=ELO` fixes one agent instead).",
                known.join(", ")
            );
        }
        if self.interval_reference.len() == 1 {
            return format!(
                "Scale: `{}` = {:.0} (intervals relative to it; `--anchor NAME=ELO` sets another).",
                self.anchor.0, self.anchor.1
            );
        }
        "Scale: the agents' mean = 0; each interval is relative to that mean (`--anchor NAME=ELO` fixes one agent instead).".to_string()
    }

    /// The table in Markdown; a luck-adjusted table leads with the
    /// adjusted ratings, ordered by them, the raw ones beside.
    pub fn markdown(&self) -> String {
        let with_loss = self.rows.iter().any(|r| r.loss_per_move_pp.is_some());
        let adjusted = self.luck.is_some();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "| rank | agent |{} Elo | 95% interval | games | score | LOS next | forfeits |{}",
            if adjusted {
                " adj. Elo | 95% interval | adj. score |"
            } else {
                ""
            },
            if with_loss { " loss/move |" } else { "" }
        );
        let _ = writeln!(
            out,
            "|---:|:---|{}---:|:---:|---:|---:|---:|---:|{}",
            if adjusted { "---:|:---:|---:|" } else { "" },
            if with_loss { "---:|" } else { "" }
        );
        for (rank, r) in self.rows.iter().enumerate() {
            let _ = writeln!(out, "{}", markdown_row(rank, r, with_loss));
        }
        let _ = writeln!(
            out,
            "\n{} games of {}. Moving first is worth {:+.0} Elo (95% interval {:+.0} to {:+.0}). {} Prior: {} virtual drawn games per pairing. Method: {}.",
            self.games,
            self.rules,
            no_negative_zero(self.first_move_elo.0),
            no_negative_zero(self.first_move_elo.1),
            no_negative_zero(self.first_move_elo.2),
            self.scale_text(),
            self.prior,
            self.method
        );
        if let Some(luck) = &self.luck {
            let shares: Vec<String> = luck
                .shares
                .iter()
                .map(|(a, b, share)| format!("`{a}`–`{b}` {share:.2}"))
                .collect();
            let _ = writeln!(
                out,
                "Luck-adjusted (adj. Elo, adj. score; rows and LOS by them): the luck of every roll measured by {}, taken out of each game's result. Share of the luck taken out, by pairing: {}. Moving first is worth {} Elo on adjusted scores (95% interval {} to {}). Prior: {} virtual drawn games per pairing. Method: {}.",
                luck.reference,
                shares.join(", "),
                elo_text(luck.first_move_elo.0),
                elo_text(luck.first_move_elo.1),
                elo_text(luck.first_move_elo.2),
                luck.prior,
                luck.method
            );
        }
        if with_loss {
            let _ = writeln!(
                out,
                "Loss/move: mean win probability (percentage points) given away against the best move by the solved table, over moves with more than one legal choice."
            );
        }
        if !self.crosstable.pairings.is_empty() {
            let _ = write!(
                out,
                "\n## Head to head\n\nEach pairing from the first agent's side; a forfeit is a game lost by failing (a crash, a timeout, an answer that is not a legal move). The score's interval is Wilson's over the games{}.\n\n{}",
                if self.luck.is_some() {
                    "; the adjusted score's is over pairs of games"
                } else {
                    ""
                },
                self.crosstable.markdown()
            );
        }
        if !self.forfeits.is_empty() {
            let _ = write!(
                out,
                "\n## Forfeits\n\nWhy games were forfeited, by agent and kind (time: no answer in time; crash: the bot stopped; start: it did not start or answer hello; malformed: an answer not in the protocol's shape; illegal: a move that is not legal; withdrawn: games after its withdrawal), with the first message of each kind (results.jsonl has them all).\n\n{}",
                crate::ratings::forfeits::markdown(&self.forfeits)
            );
        }
        out
    }

    /// The table as CSV (`agent,elo,ci_low,ci_high,games,score,wins,failures,los_next,loss_per_move_pp,adjusted_elo,adjusted_ci_low,adjusted_ci_high,adjusted_score,adjusted_los_next`;
    /// the adjusted columns are empty in a table without luck).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "agent,elo,ci_low,ci_high,games,score,wins,failures,los_next,loss_per_move_pp,adjusted_elo,adjusted_ci_low,adjusted_ci_high,adjusted_score,adjusted_los_next\n",
        );
        for r in &self.rows {
            let quoted = format!("\"{}\"", r.agent.replace('"', "\"\""));
            let adjusted = r
                .adjusted
                .as_ref()
                .map(|a| {
                    format!(
                        "{:.2},{:.2},{:.2},{:.6},{}",
                        a.elo,
                        a.ci_low,
                        a.ci_high,
                        a.score,
                        a.los_next.map(|p| format!("{p:.6}")).unwrap_or_default()
                    )
                })
                .unwrap_or_else(|| ",,,,".into());
            let _ = writeln!(
                out,
                "{quoted},{:.2},{:.2},{:.2},{},{:.6},{},{},{},{},{adjusted}",
                r.elo,
                r.ci_low,
                r.ci_high,
                r.games,
                r.score,
                r.wins,
                r.failures,
                r.los_next.map(|p| format!("{p:.6}")).unwrap_or_default(),
                r.loss_per_move_pp
                    .map(|l| format!("{l:.4}"))
                    .unwrap_or_default()
            );
        }
        out
    }

    /// The ratings with error bars as an SVG chart.
    pub fn svg(&self) -> Result<String, String> {
        use plotters::prelude::*;
        let mut text = String::new();
        let n = self.rows.len();
        {
            let chart_height = 90 + 34 * n as u32;
            let grid_height = if self.crosstable.pairings.is_empty() {
                0
            } else {
                60 + 22 * n as u32
            };
            let whole = SVGBackend::with_string(&mut text, (820, chart_height + grid_height))
                .into_drawing_area();
            whole.fill(&WHITE).map_err(|e| e.to_string())?;
            let (root, grid) = whole.split_vertically(chart_height);
            self.draw_crosstable(&grid)?;
            let ends = |r: &Row| {
                let adjusted = r.adjusted.as_ref().map(|a| (a.ci_low, a.ci_high));
                [Some((r.ci_low, r.ci_high)), adjusted]
            };
            let low = self
                .rows
                .iter()
                .flat_map(ends)
                .flatten()
                .map(|e| e.0)
                .fold(f64::INFINITY, f64::min);
            let high = self
                .rows
                .iter()
                .flat_map(ends)
                .flatten()
                .map(|e| e.1)
                .fold(f64::NEG_INFINITY, f64::max);
            let margin = ((high - low) * 0.08).max(10.0);
            let names: Vec<String> = self
                .rows
                .iter()
                .map(|r| {
                    if r.agent.chars().count() > 34 {
                        format!("{}…", r.agent.chars().take(33).collect::<String>())
                    } else {
                        r.agent.clone()
                    }
                })
                .collect();
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!(
                        "Elo ratings, {} ({} games, 95% intervals{})",
                        self.rules,
                        self.games,
                        if self.luck.is_some() {
                            "; red: luck-adjusted, blue: raw"
                        } else {
                            ""
                        }
                    ),
                    ("sans-serif", 18),
                )
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(250)
                .build_cartesian_2d((low - margin)..(high + margin), -0.5f64..(n as f64 - 0.5))
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(n.max(1))
                .y_label_formatter(&|y| {
                    let k = y.round();
                    if (y - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < n {
                        names[n - 1 - k as usize].clone()
                    } else {
                        String::new()
                    }
                })
                .x_label_formatter(&|x| format!("{x:.0}"))
                .x_desc("Elo")
                .draw()
                .map_err(|e| e.to_string())?;
            for (k, r) in self.rows.iter().enumerate() {
                let y = (n - 1 - k) as f64;
                let mut bars = vec![(r.elo, r.ci_low, r.ci_high, y, BLUE)];
                if let Some(a) = &r.adjusted {
                    bars[0].3 = y + 0.18;
                    bars.push((a.elo, a.ci_low, a.ci_high, y - 0.18, RED));
                }
                for (elo, low, high, y, colour) in bars {
                    error_bar(&mut chart, elo, (low, high), y, colour)?;
                }
            }
            whole.present().map_err(|e| e.to_string())?;
        }
        Ok(text)
    }

    /// The head-to-head scores as a grid of percentages (row agent's score
    /// against column agent), agents numbered as in the chart's order.
    fn draw_crosstable<DB: plotters::prelude::DrawingBackend>(
        &self,
        area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String> {
        use plotters::prelude::*;
        if self.crosstable.pairings.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = self.rows.iter().map(|r| r.agent.as_str()).collect();
        let n = names.len();
        let style = ("sans-serif", 13).into_font().color(&BLACK);
        let draw = |text: String, x: i32, y: i32| {
            area.draw(&Text::new(text, (x, y), style.clone()))
                .map_err(|e| e.to_string())
        };
        draw(
            "Head to head: the row's score against the column (%)".into(),
            12,
            8,
        )?;
        let cell = ((820 - 260) / n.max(1) as i32).min(70);
        for (j, _) in names.iter().enumerate() {
            draw(format!("{}", j + 1), 260 + cell * j as i32, 32)?;
        }
        for (i, name) in names.iter().enumerate() {
            let y = 54 + 22 * i as i32;
            let short: String = if name.chars().count() > 30 {
                format!("{}…", name.chars().take(29).collect::<String>())
            } else {
                name.to_string()
            };
            draw(format!("{}. {short}", i + 1), 12, y)?;
            for (j, other) in names.iter().enumerate() {
                let score = self.crosstable.pairings.iter().find_map(|p| {
                    if p.agent == *name && p.opponent == *other {
                        Some(p.score.score)
                    } else if p.agent == *other && p.opponent == *name {
                        Some(1.0 - p.score.score)
                    } else {
                        None
                    }
                });
                if let Some(score) = score {
                    draw(format!("{:.0}", 100.0 * score), 260 + cell * j as i32, y)?;
                }
            }
        }
        Ok(())
    }

    /// Writes `elo.md`, `elo.csv`, `crosstable.csv`, `elo.json` and
    /// `elo.svg` into `dir`, each atomically.
    pub fn write(&self, dir: &Path, heading: &str) -> Result<(), std::io::Error> {
        sawah_engine::files::create_dir_all(dir)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let svg = self.svg().map_err(std::io::Error::other)?;
        for (name, content) in [
            ("elo.md", format!("{heading}\n\n{}", self.markdown())),
            ("elo.csv", self.csv()),
            ("crosstable.csv", self.crosstable.csv()),
            ("elo.json", json + "\n"),
            ("elo.svg", svg),
        ] {
            sawah_agents::files::write_atomically(&dir.join(name), content.as_bytes())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::results::GameEnding;
    use sawah_engine::Player;

    fn game(light: &str, dark: &str, winner: Option<Player>, seed: u64) -> GameRecord {
        GameRecord {
            rules: "ur".into(),
            light: light.into(),
            dark: dark.into(),
            pair: seed,
            seed,
            ending: GameEnding::of(winner, None),
            winner,
            length: 10,
            moves: vec![],
            failure: None,
            luck: None,
        }
    }

    /// A gauntlet: `bot` against three levels of known rating, which
    /// never meet one another. Every interval is real (the scale is the
    /// levels' mean), and the bot's is widest: it is the least known.
    #[test]
    fn a_gauntlets_first_agent_gets_a_real_interval_on_the_levels_scale() {
        let mut records = Vec::new();
        for s in 0..60 {
            for (level, wins_every) in [("easy", 2), ("medium", 3), ("hard", 5)] {
                let w = |light_wins: bool| {
                    Some(if light_wins {
                        Player::Light
                    } else {
                        Player::Dark
                    })
                };
                records.push(game("bot", level, w(s % wins_every == 0), s));
                records.push(game(level, "bot", w(s % wins_every != 0), s));
            }
        }
        let known = vec![
            ("easy".to_string(), 700.0),
            ("medium".to_string(), 900.0),
            ("hard".to_string(), 1100.0),
        ];
        let options = TableOptions {
            anchor: (None, 0.0),
            known: known.clone(),
            ..TableOptions::default()
        };
        let order = vec!["bot".to_string()];
        let table = elo_table("ur", &records, &order, &options, &HashMap::new()).unwrap();
        let width = |name: &str| {
            let row = table.rows.iter().find(|r| r.agent == name).unwrap();
            row.ci_high - row.ci_low
        };
        for name in ["bot", "easy", "medium", "hard"] {
            assert!(width(name) > 20.0, "{name}: {}", width(name));
        }
        assert!(width("bot") < width("easy") + width("medium"));
        // The levels' mean is their known mean.
        let mean: f64 = ["easy", "medium", "hard"]
            .iter()
            .map(|n| table.rows.iter().find(|r| r.agent == *n).unwrap().elo)
            .sum::<f64>()
            / 3.0;
        assert!((mean - 900.0).abs() < 1e-6, "{mean}");
        assert!(table.scale_text().contains("relative to that mean"));
        // Without known levels and without an anchor the scale is the
        // agents' mean, and again no interval is zero wide.
        let bare = TableOptions {
            anchor: (None, 0.0),
            ..TableOptions::default()
        };
        let table = elo_table("ur", &records, &order, &bare, &HashMap::new()).unwrap();
        assert!(table.rows.iter().all(|r| r.ci_high - r.ci_low > 20.0));
        let mean = table.rows.iter().map(|r| r.elo).sum::<f64>() / 4.0;
        assert!(mean.abs() < 1e-6, "{mean}");
        assert!(table.scale_text().contains("the agents' mean = 0"));
        // An anchor given by name is the one agent with no width.
        let anchored = TableOptions {
            anchor: (Some("medium".to_string()), 900.0),
            ..TableOptions::default()
        };
        let table = elo_table("ur", &records, &order, &anchored, &HashMap::new()).unwrap();
        for row in &table.rows {
            assert_eq!(
                row.agent == "medium",
                row.ci_high - row.ci_low == 0.0,
                "{}",
                row.agent
            );
        }
    }

    fn games() -> Vec<GameRecord> {
        let mut out = Vec::new();
        for s in 0..40 {
            let w = |p: bool| Some(if p { Player::Light } else { Player::Dark });
            out.push(game("strong", "random", w(s % 10 != 0), s));
            out.push(game("random", "strong", w(s % 10 == 0), s));
            out.push(game("middle", "random", w(s % 3 != 0), s));
            out.push(game("random", "middle", w(s % 3 == 0), s));
            out.push(game("strong", "middle", w(s % 4 != 0), s));
            out.push(game("middle", "strong", w(s % 4 == 0), s));
        }
        out
    }

    #[test]
    fn a_table_ranks_and_anchors_and_writes_every_format() {
        let table = elo_table(
            "ur",
            &games(),
            &[],
            &TableOptions::default(),
            &HashMap::new(),
        )
        .unwrap();
        let order: Vec<&str> = table.rows.iter().map(|r| r.agent.as_str()).collect();
        assert_eq!(order, ["strong", "middle", "random"]);
        let random = table.rows.iter().find(|r| r.agent == "random").unwrap();
        assert_eq!(random.elo, 0.0);
        assert_eq!(random.games, 160);
        assert!(table.rows[0].los_next.unwrap() > 0.9);
        assert!(table.markdown().contains("| 1 | `strong` |"));
        let csv = table.csv();
        assert!(csv.starts_with("agent,elo,ci_low,ci_high,games,score"));
        assert_eq!(csv.lines().count(), 4);
        let svg = table.svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("strong"), "{svg}");
    }

    #[test]
    fn an_unknown_anchor_is_named() {
        let options = TableOptions {
            anchor: (Some("hard".into()), 0.0),
            prior: 2.0,
            ..TableOptions::default()
        };
        let err = elo_table("ur", &games(), &[], &options, &HashMap::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"hard\"") && err.contains("strong"), "{err}");
    }
}

/// `value` rounded to a whole number, never `-0` (a rating of -0.3 is
/// printed `0`).
/// One row of the Markdown table (without its line end).
fn markdown_row(rank: usize, r: &Row, with_loss: bool) -> String {
    let los = r
        .adjusted
        .as_ref()
        .map_or(r.los_next, |a| a.los_next)
        .map(|p| format!("{:.1}%", 100.0 * p))
        .unwrap_or_default();
    let luck = r
        .adjusted
        .as_ref()
        .map(|a| {
            format!(
                " {} | {} to {} | {:.2}% |",
                elo_text(a.elo),
                elo_text(a.ci_low),
                elo_text(a.ci_high),
                100.0 * a.score
            )
        })
        .unwrap_or_default();
    let loss = if with_loss {
        format!(
            " {} |",
            r.loss_per_move_pp
                .map(|l| format!("{l:.2} pp"))
                .unwrap_or_else(|| "n/a".into())
        )
    } else {
        String::new()
    };
    let sweep = if r.games > 0 && r.score == 0.0 {
        " (lost every game)"
    } else if r.games > 0 && r.score == 1.0 {
        " (won every game)"
    } else {
        ""
    };
    format!(
        "| {} | `{}` |{luck} {:.0}{sweep} | {:.0} to {:.0} | {} | {:.1}% | {} | {} |{}",
        rank + 1,
        r.agent,
        no_negative_zero(r.elo),
        no_negative_zero(r.ci_low),
        no_negative_zero(r.ci_high),
        r.games,
        100.0 * r.score,
        los,
        r.failures,
        loss
    )
}

/// One rating with its interval: a dot and a bar with end ticks.
fn error_bar<DB: plotters::prelude::DrawingBackend>(
    chart: &mut plotters::prelude::ChartContext<
        '_,
        DB,
        plotters::prelude::Cartesian2d<
            plotters::coord::types::RangedCoordf64,
            plotters::coord::types::RangedCoordf64,
        >,
    >,
    elo: f64,
    (low, high): (f64, f64),
    y: f64,
    colour: plotters::prelude::RGBColor,
) -> Result<(), String> {
    use plotters::prelude::*;
    let mut lines = vec![vec![(low, y), (high, y)]];
    for x in [low, high] {
        lines.push(vec![(x, y - 0.12), (x, y + 0.12)]);
    }
    for line in lines {
        chart
            .draw_series(std::iter::once(PathElement::new(
                line,
                colour.stroke_width(2),
            )))
            .map_err(|e| e.to_string())?;
    }
    chart
        .draw_series(std::iter::once(Circle::new((elo, y), 5, colour.filled())))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// An adjusted rating, to a tenth of an Elo point (its intervals can be
/// that narrow), never as −0.0.
fn elo_text(value: f64) -> String {
    format!("{:.1}", (value * 10.0).round() / 10.0 + 0.0)
}

fn no_negative_zero(value: f64) -> f64 {
    value.round() + 0.0
}

#[cfg(test)]
mod rounding_tests {
    #[test]
    fn ratings_are_never_printed_as_minus_zero() {
        for value in [-0.3, -0.0, 0.4, -0.5000001] {
            let printed = format!("{:.0}", super::no_negative_zero(value));
            assert!(!printed.starts_with("-0"), "{value}: {printed}");
        }
        assert_eq!(format!("{:.0}", super::no_negative_zero(-0.6)), "-1");
    }
}
