//! The shipped models, embedded in the extension (`sawah-agents`'s
//! `shipped` feature), and the files agents read: the shipped models in memory, anything else (a
//! table, a model or weights named by path) from the file system, as
//! `sawah bot` reads them for a local program.

use sawah_agents::assets::{Assets, FileAssets, MemoryAssets};
use sawah_agents::manifest::Models;
use sawah_agents::{AgentSpec, SpecError};
use std::sync::{Arc, OnceLock};

/// The shipped models (embedded in `sawah-agents` with its `shipped`
/// feature; checked against the manifest's SHA-256 once).
pub fn models() -> &'static Models {
    sawah_agents::manifest::Models::shipped()
}

/// The shipped models, then the file system.
pub fn assets() -> Arc<dyn Assets> {
    static ASSETS: OnceLock<Arc<MemoryAssets>> = OnceLock::new();
    ASSETS
        .get_or_init(|| {
            let mut assets = MemoryAssets::default().with_fallback(FileAssets);
            models().add_to(&mut assets);
            Arc::new(assets)
        })
        .clone()
}

/// A spec as typed: a level (`hard`, `easy:seed=3`) through the shipped
/// manifest, or any agent spec.
pub fn spec(text: &str, rules: &str) -> Result<AgentSpec, SpecError> {
    AgentSpec::parse_with(text, rules, models())
}

/// A protocol bot like `sawah bot --models models`: the shipped levels,
/// and files named by path read from the file system.
pub fn bot() -> sawah_protocol::Bot {
    sawah_protocol::Bot::new(sawah_engine::Registry::new())
        .with_models(Some(models().clone()))
        .expect("the shipped models have no rule files of their own")
        .with_fallback(FileAssets)
}
