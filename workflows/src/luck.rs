//! The luck meter of `--luck-adjusted` (`sawah match`, `sawah sprt`): the
//! review's reference for the rule set, with the table given (perfect
//! play, exact) or without (hard one ply deeper), or the reference named.

use crate::bots::BotFiles;
use anyhow::Result;
use sawah_engine::registry::Registry;
use sawah_eval::arena::luck::ReviewLuck;
use sawah_protocol::messages::BotSpec;
use sawah_protocol::native::Limits;
use std::path::PathBuf;

/// Luck-adjustment options shared by the commands that offer it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LuckArgs {
    /// Also measure every game's luck and use the luck-adjusted score: the
    /// same expectation, far less spread (docs/tournaments.md, section
    /// "Luck-adjusted results"). The luck is measured by perfect play from
    /// --table when given (exact), else by hard one ply deeper.
    #[arg(long)]
    pub luck_adjusted: bool,
    /// The reference that measures the luck instead (a spec or a level).
    #[arg(long, value_name = "SPEC", requires = "luck_adjusted")]
    pub reference: Option<String>,
}

impl LuckArgs {
    /// The meter for rule set `rules`, if luck is to be measured.
    pub fn meter(
        &self,
        registry: &Registry,
        rules: &str,
        models: &Option<PathBuf>,
        table: Option<&str>,
    ) -> Result<Option<ReviewLuck>> {
        if !self.luck_adjusted {
            return Ok(None);
        }
        let files = BotFiles {
            models: models.clone(),
            tables: table
                .map(|table| {
                    table
                        .parse()
                        .map_err(|e: String| anyhow::anyhow!("--table {table}: {e}"))
                })
                .transpose()?
                .into_iter()
                .collect(),
        };
        let setup = crate::bots::setup(&files, false, Limits::NONE)?;
        let bot = crate::bots::native_bot(registry.clone(), &setup)?;
        let reference = self.reference.as_deref().map(BotSpec::from);
        let meter = ReviewLuck::new(bot, rules, reference)
            .map_err(|e| anyhow::anyhow!("--reference: {e}"))?;
        Ok(Some(meter))
    }
}
