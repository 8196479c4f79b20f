//! Writing files that matter (tables, models, checkpoints, results) so a
//! crash never leaves a half-written one: a temporary file beside the
//! target, synced, then renamed over it; and the lock that keeps a folder
//! (a tournament's, a training run's) to one writing process at a time.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use sawah_engine::files::open_regular;

/// Writes `bytes` to `path` atomically. Errors name the file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// Writes `path` atomically from `fill`, which streams the contents into a
/// buffered writer: large files (solved tables, layer checkpoints) never
/// need a second copy in memory. The writer's type is concrete, so the
/// many small writes of a table inline. Nothing replaces `path` unless
/// `fill` succeeds. Errors name the file.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // Unique per process and call, so two writers of one path never share
    // a temporary file (the last rename wins, whole).
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let mut temporary = path.as_os_str().to_owned();
    let call = WRITES.fetch_add(1, Ordering::Relaxed);
    temporary.push(format!(".tmp{}-{call}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let written = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&temporary)?);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        // Best effort: the error that matters is the write's.
        let _ = std::fs::remove_file(&temporary);
        return Err(named(e));
    }
    std::fs::rename(&temporary, path).map_err(named)
}

/// Takes an exclusive advisory lock on `dir/name` (created empty if
/// missing; it stays): `Some` holds it until the file is dropped or the
/// process ends, however it ends; `None` says that another holder (another
/// process, or another open in this one) has it. The caller names the
/// file in its error.
pub fn try_lock_folder(dir: &Path, name: &str) -> std::io::Result<Option<File>> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(name))?;
    match lock.try_lock() {
        Ok(()) => Ok(Some(lock)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_lock_is_held_once_until_dropped() {
        let dir = std::env::temp_dir().join(format!("sawah-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = try_lock_folder(&dir, "x.lock").unwrap();
        assert!(first.is_some());
        assert!(try_lock_folder(&dir, "x.lock").unwrap().is_none());
        assert!(try_lock_folder(&dir, "y.lock").unwrap().is_some());
        drop(first);
        assert!(try_lock_folder(&dir, "x.lock").unwrap().is_some());
        let missing = dir.join("no-such-folder");
        let error = try_lock_folder(&missing, "x.lock").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sawah-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("kept.bin");
        write_atomically(&path, b"old").unwrap();
        let error = write_atomically_with(&path, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(error.to_string().contains("kept.bin"), "{error}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "the temporary file was not removed");
        write_atomically_with(&path, |out| out.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
