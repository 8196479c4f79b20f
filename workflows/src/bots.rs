//! The bot a workflow plays or reviews with: the files it is started with
//! (a models folder, solved tables) and the protocol's native bot made
//! from them (shared by `sawah bot`, `sawah serve`, reviews and puzzles).

use sawah_engine::registry::Registry;
use sawah_protocol::Bot;
use sawah_protocol::native::{self, Limits, Setup, TableArg};
use std::path::PathBuf;

/// The files a bot is started with (shared by `sawah bot` and `sawah serve`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct BotFiles {
    /// A solved table, `RULES=FILE` or `FILE` (its header names the rule
    /// set), opened at start: `"bot":"perfect"` plays from it, and so do
    /// `choose` and `evaluate` requests for its rule set that name no bot.
    /// A Senet endgame table (`sawah solve --rules senet --pieces K`)
    /// serves specs' `endgame=FILE` instead. Repeat for more rule sets.
    #[arg(long = "table", value_name = "[RULES=]FILE")]
    pub tables: Vec<TableArg>,
    /// The models folder whose manifest serves "easy", "medium" and
    /// "hard" (default: ./models, else the models embedded in the binary); its
    /// other .safetensors files are loaded too, named by file name.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

/// The setup of a bot started with `files` and `limits`; `untrusted` bots
/// read no file a request names by path.
pub fn setup(files: &BotFiles, untrusted: bool, limits: Limits) -> anyhow::Result<Setup> {
    Ok(Setup {
        models: crate::models::find(files.models.as_deref())?,
        tables: files.tables.clone(),
        untrusted,
        limits,
    })
}

/// The bot `setup` describes, every file opened and checked now.
pub fn native_bot(registry: Registry, setup: &Setup) -> anyhow::Result<Bot> {
    Ok(native::bot(registry, setup)?)
}
