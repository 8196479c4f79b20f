//! `sawah moves` and `sawah rules`: arguments for `crate::commands::describe::text`.

pub mod text;

use anyhow::Result;
use sawah_engine::registry::Registry;
use std::path::PathBuf;

/// The arguments of `sawah moves`.
#[derive(clap::Args, Debug)]
pub struct MovesArgs {
    /// Rule set the position must belong to (optional: the position names its rules).
    #[arg(long)]
    pub rules: Option<String>,
    /// The position, as JSON or in notation (e.g. "sawah light 3/1,5,9/1 7/-/0").
    #[arg(long)]
    pub position: String,
    /// The roll.
    #[arg(long)]
    pub roll: u8,
    /// Print the bot protocol's JSON response instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `sawah rules`.
#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    /// Rule set name or rule file path.
    pub name: Option<String>,
    /// Export everything a front end needs to draw and play it, as JSON
    /// (with --report: the report as JSON).
    #[arg(long)]
    pub json: bool,
    /// A report for rule designers (docs/variants.md): the first player's
    /// advantage, how much skill matters, game length, how often a roll
    /// is a real choice, what each first roll is worth.
    #[arg(long, requires = "name")]
    pub report: bool,
    /// The rule set's solved table (`sawah solve`): the report is then
    /// exact where it can be, and its games are perfect play.
    #[arg(long, value_name = "FILE", requires = "report")]
    pub table: Option<PathBuf>,
    /// Games per measurement.
    #[arg(long, default_value_t = 1000, requires = "report")]
    pub games: u64,
    /// The seed of every game measured.
    #[arg(long, default_value_t = 1, requires = "report")]
    pub seed: u64,
    /// The models folder whose levels play (default: ./models, else the
    /// embedded models).
    #[arg(long, value_name = "DIR", requires = "report")]
    pub models: Option<PathBuf>,
}

/// Lists the legal moves.
pub fn moves_command(registry: &mut Registry, args: MovesArgs) -> Result<()> {
    text::moves(
        registry,
        args.rules.as_deref(),
        &args.position,
        args.roll,
        args.json,
    )
}

/// Describes a rule set, or lists them all (`--report` is `sawah rules
/// NAME --report`, which `commands::report` answers).
pub fn rules_command(registry: &mut Registry, args: RulesArgs) -> Result<()> {
    text::describe_rules(registry, args.name.as_deref(), args.json)
}

/// Measures the rule set (`sawah rules R --report`) and prints the report,
/// as JSON with `--json`, else in Markdown.
pub fn report_command(registry: &mut Registry, args: &RulesArgs) -> Result<()> {
    use anyhow::Context;
    use sawah_workflows::report::{ReportOptions, markdown, variant_report};
    let options = ReportOptions {
        rules: args.name.clone().context("--report needs a rule set")?,
        table: args.table.clone(),
        games: args.games,
        seed: args.seed,
        models: args.models.clone(),
    };
    let report = variant_report(registry, &options)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", markdown(&report));
    }
    Ok(())
}
