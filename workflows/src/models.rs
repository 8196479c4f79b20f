//! Finding the shipped levels: `--models DIR`, else `./models`, else the
//! models embedded in the binary when it was built (so an installed `sawah`
//! needs no files beside it). An embedded level names its model by file
//! name (`model=ur.safetensors`): agents read it from the binary unless a
//! file of that name is in the working folder.

use anyhow::{Context, Result};
use sawah_agents::manifest::{MANIFEST_FILE, Models};
use sawah_agents::{AgentSpec, SpecError};
use std::path::{Path, PathBuf};

/// The models to use, checked: `explicit`, else `./models`, else the
/// embedded ones.
pub fn find(explicit: Option<&Path>) -> Result<Option<Models>> {
    if let Some(dir) = explicit {
        return Ok(Some(
            Models::load(dir).with_context(|| format!("--models {}", dir.display()))?,
        ));
    }
    let local = PathBuf::from("models");
    if local.join(MANIFEST_FILE).exists() {
        // The error names the manifest's path already.
        return Ok(Some(Models::load(&local)?));
    }
    Ok(Some(sawah_agents::manifest::Models::shipped().clone()))
}

/// Makes the rule sets of the models folder a command uses (`explicit`,
/// else `./models`; the embedded models have none) known to `registry`.
pub fn register_rule_files(
    registry: &mut sawah_engine::Registry,
    explicit: Option<&Path>,
) -> Result<()> {
    if explicit.is_none() && !Path::new("models").join(MANIFEST_FILE).exists() {
        return Ok(());
    }
    if let Some(models) = find(explicit)? {
        models.register(registry)?;
    }
    Ok(())
}

/// The spec a command line names for rule set `rules`: the text form or
/// the JSON form (`{"agent":"hard","depth":1}`), its level or `elo=N`
/// resolved through `models` either way, and a model of models read from
/// a folder named by its path there (agents here read files by path).
pub fn spec_of(models: &Option<Models>, text: &str, rules: &str) -> Result<AgentSpec, SpecError> {
    let spec = AgentSpec::parse_with(text, rules, models)?;
    Ok(match models {
        Some(models) => models.located(spec),
        None => spec,
    })
}
