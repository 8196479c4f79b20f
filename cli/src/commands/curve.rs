//! `sawah curve`: training runs' learning curves against one fixed
//! opponent (from each run's `evals.jsonl`), as a table per run, where each
//! flattens, and one chart (SVG) with every run for comparison.

use anyhow::{Context, Result, bail};
use sawah_eval::ratings::curve::{self, Curve, CurvePoint};
use sawah_train::neural::RunFolder;
use sawah_train::neural::run::Evaluation;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The arguments of `sawah curve`.
#[derive(clap::Args, Debug)]
pub struct CurveArgs {
    /// Run folders (of `sawah train`), drawn on one chart.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// The opponent whose evaluations make the curve (a spec the runs were
    /// evaluated against; leave out when there is only one).
    #[arg(long, value_name = "SPEC")]
    pub opponent: Option<String>,
    /// A name per run for the chart, in the order of the runs [default:
    /// the folders' names].
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,
    /// The chart to write (SVG).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The chart's title [default: the rule set and the opponent].
    #[arg(long)]
    pub title: Option<String>,
    /// How many last evaluations make a run's final level, which the
    /// plateau is measured against.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub tail: u32,
}

/// Runs `sawah curve`.
pub fn run(args: CurveArgs) -> Result<()> {
    if !args.labels.is_empty() && args.labels.len() != args.runs.len() {
        bail!(
            "{} labels for {} runs: give one --label per run, or none",
            args.labels.len(),
            args.runs.len()
        );
    }
    let mut rules = BTreeSet::new();
    let mut runs = Vec::new();
    for dir in &args.runs {
        let folder = RunFolder { dir: dir.clone() };
        let record = folder.read_record()?;
        rules.insert(record.rules);
        runs.push((dir, folder.read_evals()?));
    }
    let opponents: BTreeSet<&str> = runs
        .iter()
        .flat_map(|(_, evals)| opponents_of(evals))
        .collect();
    let opponent = match (&args.opponent, opponents.len()) {
        (Some(opponent), _) => opponent.clone(),
        (None, 1) => opponents
            .iter()
            .next()
            .map(|o| o.to_string())
            .unwrap_or_default(),
        (None, _) => bail!(
            "name the opponent with --opponent; the runs were evaluated against: {}",
            opponents.into_iter().collect::<Vec<_>>().join(", ")
        ),
    };
    let tail = args.tail as usize;
    let mut curves = Vec::new();
    for (k, (dir, evals)) in runs.iter().enumerate() {
        let points: Vec<CurvePoint> = evals
            .iter()
            .filter_map(|e| {
                let r = e.results.iter().find(|r| r.0 == opponent)?;
                Some(CurvePoint {
                    games: e.games,
                    score: r.1,
                    low: r.2,
                    high: r.3,
                })
            })
            .collect();
        if points.is_empty() {
            bail!(
                "{}: no evaluation against {opponent:?}; its opponents: {}",
                dir.display(),
                opponents_of(evals)
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let label = match args.labels.get(k) {
            Some(label) => label.clone(),
            None => dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| dir.display().to_string()),
        };
        curves.push(Curve {
            label,
            opponent: opponent.clone(),
            points,
        });
    }
    for curve in &curves {
        println!("{}", curve.markdown());
        if let (Some(level), Some(plateau)) = (curve.final_elo(tail), curve.plateau(tail)) {
            println!(
                "{}: ends at {level:+.0} Elo (mean of the last {} evaluations); flat from {} training games on (no later evaluation's 95% interval lies wholly below that level)\n",
                curve.label,
                tail.min(curve.points.len()),
                plateau.games
            );
        }
    }
    if let Some(out) = &args.out {
        let rules: Vec<String> = rules.into_iter().collect();
        let title = args.title.clone().unwrap_or_else(|| {
            format!(
                "{}: learning curves against {opponent} (95% intervals)",
                rules.join(", ")
            )
        });
        let svg = curve::svg(&curves, &title, tail).map_err(anyhow::Error::msg)?;
        sawah_agents::files::write_atomically(out, svg.as_bytes())
            .with_context(|| format!("writing {}", out.display()))?;
        println!("chart: {}", out.display());
    }
    Ok(())
}

/// The opponents a run was evaluated against, in order.
fn opponents_of(evals: &[Evaluation]) -> BTreeSet<&str> {
    evals
        .iter()
        .flat_map(|e| e.results.iter().map(|r| r.0.as_str()))
        .collect()
}
