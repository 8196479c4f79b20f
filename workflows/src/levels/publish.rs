//! Writing the models folder: the rule set's files and entries merged into
//! the folder's (another rule set's entries are kept), all at once. The
//! new folder is assembled beside the old one under a random name, checked
//! as a front door would load it, and swapped in with one rename
//! (`renameat2` with `RENAME_EXCHANGE` on Linux), so a reader sees the old
//! folder or the new one, never a mix; a failure (a full disk) leaves the
//! old folder as it was and removes the half-made one.

use super::build::Built;
use super::folder::RulesSource;
use super::work::Holder;
use anyhow::{Context, Result, bail};
use sawah_agents::manifest::{MANIFEST_FILE, Manifest, Models};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The lock file beside a models folder `out`: `OUT.lock`.
fn lock_path(out: &Path) -> PathBuf {
    let mut path = out.as_os_str().to_owned();
    path.push(".lock");
    PathBuf::from(path)
}

/// Refuses a target that is neither missing, an empty folder, nor a models
/// folder (one with a manifest that loads).
pub fn check_target(out: &Path) -> Result<()> {
    if !out.exists() {
        let parent = parent_of(out);
        if !parent.is_dir() {
            bail!(
                "--out {}: the folder {} does not exist",
                out.display(),
                parent.display()
            );
        }
        return Ok(());
    }
    if !out.is_dir() {
        bail!("--out {} is a file, not a models folder", out.display());
    }
    let empty = std::fs::read_dir(out)
        .with_context(|| format!("--out {}", out.display()))?
        .next()
        .is_none();
    if empty {
        return Ok(());
    }
    if !out.join(MANIFEST_FILE).exists() {
        bail!(
            "--out {} is not a models folder (it has files but no {MANIFEST_FILE}); give a new folder or a models folder",
            out.display()
        );
    }
    Models::load(out)
        .with_context(|| format!("--out {} is not a models folder that loads", out.display()))?;
    Ok(())
}

/// Locks the target folder for the whole build (`OUT.lock`, beside it):
/// a second build into it is refused, naming the first.
pub fn lock_target(out: &Path, holder: &Holder) -> Result<File> {
    super::work::lock(
        &lock_path(out),
        holder,
        &format!("the models folder {}", out.display()),
    )
}

fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Merges `built` into the models folder `out` and swaps it in.
pub fn publish(out: &Path, built: &Built, source: &RulesSource) -> Result<()> {
    let rules = source.game.name();
    let parent = parent_of(out);
    let new_dir = parent.join(format!(
        ".{}.new-{:016x}",
        out.file_name()
            .map_or("models".into(), |n| n.to_string_lossy()),
        rand::random::<u64>()
    ));
    std::fs::create_dir(&new_dir).with_context(|| format!("creating {}", new_dir.display()))?;
    let assembled = assemble(out, built, rules, &new_dir).and_then(|()| {
        let models = Models::load(&new_dir)?;
        let mut registry = sawah_engine::Registry::new();
        models.register(&mut registry)?;
        let game = registry.get(rules)?;
        sawah_engine::with_game!(&game, g => models.check(g))?;
        Ok(())
    });
    if let Err(error) = assembled {
        let _ = std::fs::remove_dir_all(&new_dir);
        return Err(error.context(format!("assembling the new {}", out.display())));
    }
    swap_in(&new_dir, out)
}

/// Fills `new_dir`: the old folder's files but this rule set's, the new
/// files, and the merged manifest.
fn assemble(out: &Path, built: &Built, rules: &str, new_dir: &Path) -> Result<()> {
    let old: Option<Manifest> = if out.join(MANIFEST_FILE).exists() {
        Some(Models::load(out)?.manifest().clone())
    } else {
        None
    };
    let mut manifest = built.entries.manifest();
    let mut new_files = built.entries.files();
    new_files.extend(built.extra_files.iter().cloned());
    if let Some(old) = &old {
        // Files only this rule set's old entries named go with them.
        let mut dropped: Vec<String> = Vec::new();
        dropped.extend(
            old.levels
                .iter()
                .filter(|l| l.rules == rules)
                .filter_map(|l| l.model.clone()),
        );
        dropped.extend(
            old.puzzles
                .iter()
                .filter(|p| p.rules == rules)
                .map(|p| p.file.clone()),
        );
        dropped.extend(
            old.rule_files
                .iter()
                .filter(|r| r.rules == rules)
                .map(|r| r.file.clone()),
        );
        let kept = old_entries_without(old, rules);
        let still_named: Vec<String> = kept
            .levels
            .iter()
            .filter_map(|l| l.model.clone())
            .chain(kept.puzzles.iter().map(|p| p.file.clone()))
            .chain(kept.rule_files.iter().map(|r| r.file.clone()))
            .collect();
        for entry in std::fs::read_dir(out)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let replaced = new_files.contains(&name) || name == MANIFEST_FILE;
            let gone = dropped.contains(&name) && !still_named.contains(&name);
            if replaced || gone || !entry.file_type()?.is_file() {
                continue;
            }
            copy(&entry.path(), &new_dir.join(&name))?;
        }
        manifest = merge(kept, manifest);
    }
    for name in &new_files {
        copy(&built.staging.join(name), &new_dir.join(name))?;
    }
    super::work::write_json(&new_dir.join(MANIFEST_FILE), &manifest)
}

/// `old` without rule set `rules`'s entries.
fn old_entries_without(old: &Manifest, rules: &str) -> Manifest {
    let mut kept = old.clone();
    kept.levels.retain(|l| l.rules != rules);
    kept.anchors.retain(|a| a.rules != rules);
    kept.dial.retain(|d| d.rules != rules);
    kept.puzzles.retain(|p| p.rules != rules);
    kept.rule_files.retain(|r| r.rules != rules);
    kept
}

/// `kept` followed by `new`'s entries.
fn merge(mut kept: Manifest, new: Manifest) -> Manifest {
    kept.levels.extend(new.levels);
    kept.anchors.extend(new.anchors);
    kept.dial.extend(new.dial);
    kept.puzzles.extend(new.puzzles);
    kept.rule_files.extend(new.rule_files);
    kept
}

/// Copies a file, synced, atomically (never through a link at `to`).
fn copy(from: &Path, to: &Path) -> Result<()> {
    sawah_agents::files::copy_atomically(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))
}

/// Puts `new_dir` in the place of `out` in one step, then removes the old
/// folder.
fn swap_in(new_dir: &Path, out: &Path) -> Result<()> {
    if !out.exists() {
        std::fs::rename(new_dir, out)
            .with_context(|| format!("renaming {} to {}", new_dir.display(), out.display()))?;
        return Ok(());
    }
    exchange(new_dir, out)
        .with_context(|| format!("swapping {} into {}", new_dir.display(), out.display()))?;
    // The old folder is now at new_dir's name.
    std::fs::remove_dir_all(new_dir)
        .with_context(|| format!("removing the old folder, now {}", new_dir.display()))
}

/// Exchanges two paths atomically (Linux), or renames the old one aside
/// then the new one in (elsewhere: two steps).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let path = |p: &Path| {
            CString::new(p.as_os_str().as_bytes())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
        };
        let (a, b) = (path(a)?, path(b)?);
        // SAFETY: both are valid NUL-terminated paths that live across the
        // call; renameat2 reads them only.
        let done = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if done == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let aside = b.with_extension("old");
        std::fs::rename(b, &aside)?;
        std::fs::rename(a, b)?;
        std::fs::rename(&aside, a)
    }
}
