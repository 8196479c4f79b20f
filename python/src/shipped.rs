//! The models the package plays its levels from: the shipped ones,
//! embedded in the extension (`sawah-agents`'s `shipped` feature), or a
//! models folder named with `sawah.use_models(DIR)` (what `--models DIR`
//! is to the command line: its levels, dial and puzzles, and the rule sets
//! of its rule files, known by name from then on). Files agents read by
//! path (a table, a model, weights) come from the file system, as `sawah
//! bot` reads them for a local program.

use sawah_agents::assets::{Assets, FileAssets, MemoryAssets};
use sawah_agents::manifest::Models;
use sawah_agents::{AgentSpec, SpecError};
use sawah_engine::Registry;
use std::path::Path;
use std::sync::{Arc, RwLock};

/// The models in use and the assets holding their networks.
struct InUse {
    models: Arc<Models>,
    assets: Arc<MemoryAssets>,
}

/// The models a `use_models` call put in place of the shipped ones.
static IN_USE: RwLock<Option<InUse>> = RwLock::new(None);

fn shipped_in_use() -> InUse {
    let models = Arc::new(Models::shipped().clone());
    let mut assets = MemoryAssets::default().with_fallback(FileAssets);
    models.add_to(&mut assets);
    InUse {
        models,
        assets: Arc::new(assets),
    }
}

/// Runs `f` on the models in use (the shipped ones until `use_models`).
fn with_in_use<T>(f: impl FnOnce(&InUse) -> T) -> T {
    {
        let current = IN_USE.read().unwrap_or_else(|e| e.into_inner());
        if let Some(in_use) = current.as_ref() {
            return f(in_use);
        }
    }
    let mut current = IN_USE.write().unwrap_or_else(|e| e.into_inner());
    f(current.get_or_insert_with(shipped_in_use))
}

/// The models in use.
pub fn models() -> Arc<Models> {
    with_in_use(|in_use| Arc::clone(&in_use.models))
}

/// The models in use, then the file system.
pub fn assets() -> Arc<dyn Assets> {
    with_in_use(|in_use| Arc::clone(&in_use.assets) as Arc<dyn Assets>)
}

/// The rule sets known: every built-in one and those of the models
/// folder in use.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    // A folder whose rule files clash with the built-in rule sets is
    // refused when it is loaded, so this adds every one.
    let _ = models().register(&mut registry);
    registry
}

/// Loads the models folder `dir` (checked as `sawah --models DIR` checks
/// it) and plays levels from it from now on; returns the rule sets of its
/// rule files.
pub fn use_models(dir: &Path) -> Result<Vec<String>, String> {
    let models = Models::load(dir).map_err(|e| e.to_string())?;
    let mut registry = Registry::new();
    models.register(&mut registry).map_err(|e| e.to_string())?;
    for game in registry.games() {
        sawah_engine::with_game!(game, g => models.check(g)).map_err(|e| e.to_string())?;
    }
    let added = models
        .rule_sets()
        .iter()
        .map(|r| r.name().to_string())
        .collect();
    let mut assets = MemoryAssets::default().with_fallback(FileAssets);
    models.add_to(&mut assets);
    let in_use = InUse {
        models: Arc::new(models),
        assets: Arc::new(assets),
    };
    *IN_USE.write().unwrap_or_else(|e| e.into_inner()) = Some(in_use);
    Ok(added)
}

/// Goes back to the shipped models.
pub fn use_shipped() {
    *IN_USE.write().unwrap_or_else(|e| e.into_inner()) = Some(shipped_in_use());
}

/// A spec as typed: a level (`hard`, `easy:seed=3`) or `elo=N` through
/// the models in use, or any agent spec.
pub fn spec(text: &str, rules: &str) -> Result<AgentSpec, SpecError> {
    AgentSpec::parse_with(text, rules, &*models())
}

/// A protocol bot like `sawah bot --models DIR`: the models in use, and
/// files named by path read from the file system.
pub fn bot() -> Result<sawah_protocol::Bot, String> {
    Ok(sawah_protocol::Bot::new(Registry::new())
        .with_models(Some((*models()).clone()))
        .map_err(|e| e.to_string())?
        .with_fallback(FileAssets))
}
