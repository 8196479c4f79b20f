//! Writing files, the one way the program writes: files that matter
//! (tables, models, checkpoints, results) so a crash never leaves a
//! half-written one (a temporary file beside the target, synced, then
//! renamed over it); files appended to or locked ([`open_for_writing`]),
//! never through a symbolic link at their name; and the lock that keeps a
//! folder (a tournament's, a training run's) to one writing process at a
//! time. `agents/tests/all/writes.rs` reads every crate's code and fails
//! on a file opened for writing anywhere else.

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
    // A new file under a name no one can guess (random, unique per call),
    // created only if nothing is there (O_EXCL: a link planted under the
    // name is refused, never followed), in the target's folder.
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp-{:016x}", unguessable()));
    let temporary = PathBuf::from(temporary);
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let written = (|| {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
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

/// A number no other process can guess: the standard library's random
/// hash keys (from the operating system) mixed with a count of calls.
fn unguessable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// How [`open_for_writing`] opens a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writing {
    /// Appended to, created if missing (a log, `evals.jsonl`).
    Append,
    /// Read and written in place, created if missing and never truncated
    /// (a lock file that says who holds it).
    Lock,
    /// Read and written in place; it must exist (a results file resumed).
    Existing,
}

/// Opens `path` for writing as `how` says, never through a symbolic link:
/// a link at the name is refused before opening (so nothing is created
/// or written where it points), and the file opened must be the one at the
/// name after opening too (same device and inode), so a link planted in
/// between is refused before anything is written. Anything but a regular
/// file is refused. Errors say so in words.
pub fn open_for_writing(path: &Path, how: Writing) -> std::io::Result<File> {
    let refused = |why: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{}: {why}", path.display()),
        )
    };
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(refused(
                "it is a symbolic link; remove it (files are not written through links)",
            ));
        }
        Ok(meta) if !meta.is_file() => return Err(refused("it is not a regular file")),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && how != Writing::Existing => {}
        Err(e) => return Err(e),
    }
    let mut options = OpenOptions::new();
    match how {
        Writing::Append => options.create(true).append(true),
        Writing::Lock => options.create(true).truncate(false).read(true).write(true),
        Writing::Existing => options.read(true).write(true),
    };
    let file = options.open(path)?;
    let opened = file.metadata()?;
    let named = std::fs::symlink_metadata(path)?;
    if named.file_type().is_symlink() || !opened.is_file() {
        return Err(refused(
            "it changed into a link or another kind of file while it was opened",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
            return Err(refused("it was replaced while it was opened"));
        }
    }
    Ok(file)
}

/// Copies `from` to `to` atomically (a temporary file, then a rename), so
/// nothing is written through a link at `to`.
pub fn copy_atomically(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut source = crate::files::open_regular(from)?;
    write_atomically_with(to, |out| std::io::copy(&mut source, out).map(drop))
}

/// Takes an exclusive advisory lock on `dir/name` (created empty if
/// missing; it stays; never opened through a link): `Some` holds it until
/// the file is dropped or the process ends, however it ends; `None` says
/// that another holder (another process, or another open in this one) has
/// it. The caller names the file in its error.
pub fn try_lock_folder(dir: &Path, name: &str) -> std::io::Result<Option<File>> {
    let lock = open_for_writing(&dir.join(name), Writing::Lock)?;
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

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_never_written_through() {
        let dir = std::env::temp_dir().join(format!("sawah-files-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("victim");
        std::fs::write(&target, b"keep").unwrap();
        let path = dir.join("out.json");
        // Whatever name a writer might have used is not predictable now,
        // and a link under any such name would make the create fail.
        for guess in [".tmp0-0", &format!(".tmp{}-0", std::process::id())] {
            let mut link = path.as_os_str().to_owned();
            link.push(guess);
            std::os::unix::fs::symlink(&target, &link).unwrap();
        }
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A link planted at a lock's, a log's or a resumed file's name is
    /// refused, and the file it points to is neither created nor changed.
    #[cfg(unix)]
    #[test]
    fn no_file_is_opened_for_writing_through_a_link() {
        let dir = std::env::temp_dir().join(format!("sawah-files-nofollow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let absent = dir.join("absent");
        for how in [Writing::Append, Writing::Lock, Writing::Existing] {
            for target in [&victim, &absent] {
                let link = dir.join("planted");
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(target, &link).unwrap();
                let error = open_for_writing(&link, how).unwrap_err();
                assert!(
                    error.to_string().contains("symbolic link"),
                    "{how:?}: {error}"
                );
            }
        }
        assert!(try_lock_folder(&dir, "planted").is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(!absent.exists(), "nothing created where a link points");
        // Plain files open as asked.
        let log = dir.join("log");
        open_for_writing(&log, Writing::Append).unwrap();
        assert!(open_for_writing(&dir.join("missing"), Writing::Existing).is_err());
        open_for_writing(&log, Writing::Existing).unwrap();
        let copied = dir.join("copied");
        copy_atomically(&victim, &copied).unwrap();
        assert_eq!(std::fs::read(&copied).unwrap(), b"keep");
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
