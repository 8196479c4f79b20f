//! An output path checked before a long run writes to it, so that a bad
//! path fails at once rather than after the work.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;

/// Refuses an output path that cannot be written: a folder, or a file in a
/// folder that does not exist or cannot be written to (tried with a
/// temporary file, removed at once).
pub fn check_output(path: &std::path::Path) -> Result<()> {
    if path.is_dir() {
        bail!("is a folder; give a file name");
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        bail!("the folder {} does not exist", parent.display());
    }
    // A probe under a name no one can guess, created only if nothing is
    // there (a planted link is refused, never written through).
    let probe = parent.join(format!(".sawah-probe-{:016x}", rand::random::<u64>()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
