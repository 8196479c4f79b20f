//! `sawah moves` and `sawah rules`: arguments for `crate::describe`.

use anyhow::Result;
use sawah_engine::registry::Registry;

use crate::describe;

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
    /// Export everything a front end needs to draw and play it, as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Lists the legal moves.
pub fn moves_command(registry: &mut Registry, args: MovesArgs) -> Result<()> {
    describe::moves(
        registry,
        args.rules.as_deref(),
        &args.position,
        args.roll,
        args.json,
    )
}

/// Describes a rule set, or lists them all.
pub fn rules_command(registry: &mut Registry, args: RulesArgs) -> Result<()> {
    describe::describe_rules(registry, args.name.as_deref(), args.json)
}
