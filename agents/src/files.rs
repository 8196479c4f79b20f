//! Writing files that matter (tables, models, checkpoints, results) so a
//! crash never leaves a half-written one: a temporary file beside the
//! target, synced, then renamed over it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically. Errors name the file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut file = std::fs::File::create(&temporary).map_err(named)?;
    file.write_all(bytes).map_err(named)?;
    file.sync_all().map_err(named)?;
    drop(file);
    std::fs::rename(&temporary, path).map_err(named)
}
