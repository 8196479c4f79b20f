//! Finding the shipped levels: `--models DIR`, else `./models`, else the
//! `models/` folder of the source tree the binary was built from. Without a
//! manifest the built-in presets serve `easy`, `medium` and `hard`.

use anyhow::{Context, Result};
use sawah_agents::manifest::{MANIFEST_FILE, Models};
use std::path::{Path, PathBuf};

/// The models folder to use, checked, or `None` when there is none.
pub fn find(explicit: Option<&Path>) -> Result<Option<Models>> {
    if let Some(dir) = explicit {
        return Ok(Some(
            Models::load(dir).with_context(|| format!("--models {}", dir.display()))?,
        ));
    }
    let candidates = [
        PathBuf::from("models"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../models"),
    ];
    for dir in candidates {
        if dir.join(MANIFEST_FILE).exists() {
            // The error names the manifest's path already.
            return Ok(Some(Models::load(&dir)?));
        }
    }
    Ok(None)
}

/// A bot name with a leading level resolved through `models` (when there
/// are shipped models), as [`Models::expand`]; otherwise the name as given.
pub fn expand(models: &Option<Models>, text: &str, rules: &str) -> String {
    match models {
        Some(m) => m.expand(text, rules),
        None => text.to_string(),
    }
}
