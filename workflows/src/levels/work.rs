//! The work folder of `sawah levels build`: one subfolder per stage, each
//! finished stage's record (what went in, what came out, what it found),
//! and the locks that keep one run to a folder.
//!
//! A stage is skipped when its record says it ran with the same inputs and
//! its outputs are still the files it wrote. A stage whose inputs changed
//! is refused, naming what changed, unless it is forced (`--force STAGE`
//! forces it and every stage after it). A stage that was started and
//! killed has its inputs written but no record: rerun with the same
//! inputs, it goes on from what it left (a training run from its
//! checkpoint, a tournament from its results file); with other inputs it
//! is refused like a finished one.

use anyhow::{Context, Result, bail};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What a stage record's `format` says.
pub const RECORD_FORMAT: &str = "sawah-levels-stage";
/// The stage record format this build reads and writes.
pub const RECORD_VERSION: u32 = 1;
/// A stage's record, in its folder.
const RECORD_FILE: &str = "record.json";
/// A started stage's inputs, in its folder.
const INPUTS_FILE: &str = "inputs.json";
/// The largest record read.
const MAX_RECORD_BYTES: u64 = 16 << 20;

/// A stage's inputs by name: the rule set's digest, the seed, settings,
/// and the SHA-256 of the files it reads. Values are compared as text.
pub type Inputs = BTreeMap<String, String>;

/// What a finished stage recorded.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageRecord<R> {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// Always [`RECORD_VERSION`].
    pub format_version: u32,
    /// The stage.
    pub stage: String,
    /// The rule set.
    pub rules: String,
    /// What went in.
    pub inputs: Inputs,
    /// The files it wrote in its folder, with their SHA-256.
    pub outputs: BTreeMap<String, String>,
    /// What it found (the stage's own type).
    pub result: R,
    /// Seconds it took (this process's share, when it was resumed).
    pub seconds: f64,
    /// The code that ran it (`sawah --version` and the git commit).
    pub code_version: String,
}

/// Why the folder is held: who holds it, written into the lock file.
#[derive(Clone, Debug)]
pub struct Holder {
    /// The command line, as given.
    pub command: String,
}

/// The work folder, locked by this process.
pub struct Work {
    dir: PathBuf,
    rules: String,
    /// Stages forced by `--force` (by name).
    forced: Vec<String>,
    /// Set once a forced stage is reached: every later stage is redone.
    forcing: bool,
    _locks: Vec<File>,
}

/// A stage's folder, handed to the stage's work.
pub struct StageDir {
    /// The folder.
    pub dir: PathBuf,
}

impl StageDir {
    /// A file in the stage's folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// Takes the lock file `path` (created if missing; it stays), writing who
/// holds it; refuses, naming the holder, when another process has it.
pub fn lock(path: &Path, holder: &Holder, what: &str) -> Result<File> {
    let mut file = sawah_agents::files::open_for_writing(path, sawah_agents::files::Writing::Lock)
        .with_context(|| format!("lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut said = String::new();
            let _ = (&file).take(4096).read_to_string(&mut said);
            let said = sawah_engine::text::printable(said.trim(), 400);
            bail!(
                "{what} is in use by another run ({}); wait for it to end, or stop it",
                if said.is_empty() {
                    format!("lock {}", path.display())
                } else {
                    said
                }
            );
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("lock file {}", path.display()));
        }
    }
    file.set_len(0)?;
    writeln!(
        file,
        "pid {}, `{}`",
        std::process::id(),
        sawah_engine::text::printable(&holder.command, 300)
    )?;
    file.flush()?;
    Ok(file)
}

pub use crate::digest::sha256_file;

/// The differences between two sets of inputs, for people:
/// `seed: 1 → 2, table: (none) → 3f…`.
/// Reads inputs that earlier builds recorded as this build writes them.
///
/// Builds before 2026-12-08 recorded a network's `route` as the whole plan
/// summary ("ROUTE; networks …; hard's search from …"), so changing the
/// search candidates refused networks whose training they do not touch.
/// The route is the part before "; networks ": reading it that way keeps
/// those work folders' networks (hours of training) instead of asking for
/// `--force`. Decision: an upgrade on read, not a new record version,
/// because nothing else in the record changed.
fn upgrade(inputs: &mut Inputs) {
    if let Some(route) = inputs.get_mut("route")
        && let Some(cut) = route.find("; networks ")
    {
        route.truncate(cut);
    }
}

fn changes(before: &Inputs, now: &Inputs) -> String {
    let mut keys: Vec<&String> = before.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| before.get(*k) != now.get(*k))
        .map(|k| {
            let (was, is) = shown_apart(before.get(k), now.get(k));
            format!("{k}: {was} → {is}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Two values of an input, cut short around where they first differ, so
/// that a long value (a plan in words, a digest) shows what changed.
fn shown_apart(before: Option<&String>, now: Option<&String>) -> (String, String) {
    const SHOWN: usize = 24;
    let same = match (before, now) {
        (Some(a), Some(b)) => a
            .char_indices()
            .zip(b.chars())
            .find(|((_, x), y)| x != y)
            .map_or(a.len().min(b.len()), |((i, _), _)| i),
        _ => 0,
    };
    let shown = |value: Option<&String>| match value {
        None => "(none)".to_string(),
        Some(v) => {
            let start = v.floor_char_boundary(same.saturating_sub(8));
            let end = v.floor_char_boundary(start + SHOWN);
            format!(
                "{}{}{}",
                if start > 0 { "…" } else { "" },
                &v[start..end],
                if end < v.len() { "…" } else { "" }
            )
        }
    };
    (shown(before), shown(now))
}

/// How a stage was met on this run.
pub enum Met<R> {
    /// Its record matched: its result, from before.
    Done(R),
    /// It must run (for the first time, again after a kill, or forced).
    ToRun(StageDir),
}

impl Work {
    /// Opens (creating) the work folder `dir` for rule set `rules` and
    /// locks it. `forced` names the stages to redo.
    pub fn open(dir: &Path, rules: &str, forced: Vec<String>, holder: &Holder) -> Result<Work> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the work folder {}", dir.display()))?;
        let lock = lock(
            &dir.join("lock"),
            holder,
            &format!("the work folder {}", dir.display()),
        )?;
        Ok(Work {
            dir: dir.to_path_buf(),
            rules: rules.to_string(),
            forced,
            forcing: false,
            _locks: vec![lock],
        })
    }

    /// Keeps another lock for as long as the work folder is held.
    pub fn hold(&mut self, lock: File) {
        self._locks.push(lock);
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A stage's folder (whether or not it ran).
    pub fn stage_dir(&self, stage: &str) -> PathBuf {
        self.dir.join(stage)
    }

    /// Meets stage `stage` with `inputs`: its result when a record with
    /// the same inputs and intact outputs is there, else its (emptied when
    /// forced) folder to run it in. Refuses changed inputs unless forced.
    pub fn meet<R: DeserializeOwned>(&mut self, stage: &str, inputs: &Inputs) -> Result<Met<R>> {
        if self.forced.iter().any(|f| f == stage) {
            self.forcing = true;
        }
        let dir = self.stage_dir(stage);
        if self.forcing {
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .with_context(|| format!("clearing {}", dir.display()))?;
            }
            std::fs::create_dir_all(&dir)?;
            write_json(&dir.join(INPUTS_FILE), inputs)?;
            return Ok(Met::ToRun(StageDir { dir }));
        }
        let refuse = |before: &Inputs, when: &str| {
            anyhow::anyhow!(
                "the stage {stage} {when} with other inputs ({}); give --force {stage} to redo it and every stage after it, or another --work folder",
                changes(before, inputs)
            )
        };
        let record_path = dir.join(RECORD_FILE);
        if record_path.exists() {
            let mut record: StageRecord<R> = read_json(&record_path)?;
            upgrade(&mut record.inputs);
            if record.format != RECORD_FORMAT || record.format_version != RECORD_VERSION {
                bail!(
                    "{}: format {:?} version {}; this build reads {RECORD_FORMAT:?} version {RECORD_VERSION} (give --force {stage})",
                    record_path.display(),
                    record.format,
                    record.format_version
                );
            }
            if record.rules != self.rules {
                bail!(
                    "the work folder {} holds a build of {}, not {}; give another --work folder",
                    self.dir.display(),
                    record.rules,
                    self.rules
                );
            }
            if record.inputs != *inputs {
                return Err(refuse(&record.inputs, "ran"));
            }
            for (name, sha) in &record.outputs {
                let now = sha256_file(&dir.join(name))?;
                if now != *sha {
                    bail!(
                        "{} changed since the stage {stage} wrote it; give --force {stage} to redo it",
                        dir.join(name).display()
                    );
                }
            }
            return Ok(Met::Done(record.result));
        }
        let inputs_path = dir.join(INPUTS_FILE);
        if inputs_path.exists() {
            let mut before: Inputs = read_json(&inputs_path)?;
            upgrade(&mut before);
            if before != *inputs {
                return Err(refuse(&before, "was started"));
            }
        } else {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            write_json(&inputs_path, inputs)?;
        }
        Ok(Met::ToRun(StageDir { dir }))
    }

    /// The SHA-256 a finished stage recorded for its output `file`
    /// (`None` when the stage has no record or no such output).
    pub fn output_sha(&self, stage: &str, file: &str) -> Result<Option<String>> {
        let path = self.stage_dir(stage).join(RECORD_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let record: StageRecord<serde::de::IgnoredAny> = read_json(&path)?;
        Ok(record.outputs.get(file).cloned())
    }

    /// Records stage `stage` as done: its inputs, the SHA-256 of each of
    /// `outputs` (files in its folder) and its result.
    pub fn finish<R: Serialize>(
        &self,
        stage: &str,
        inputs: &Inputs,
        outputs: &[&str],
        result: R,
        seconds: f64,
    ) -> Result<R> {
        let dir = self.stage_dir(stage);
        let mut hashes = BTreeMap::new();
        for name in outputs {
            hashes.insert(name.to_string(), sha256_file(&dir.join(name))?);
        }
        let record = StageRecord {
            format: RECORD_FORMAT.into(),
            format_version: RECORD_VERSION,
            stage: stage.to_string(),
            rules: self.rules.clone(),
            inputs: inputs.clone(),
            outputs: hashes,
            result,
            seconds,
            code_version: sawah_train::neural::run::code_version(),
        };
        write_json(&dir.join(RECORD_FILE), &record)?;
        Ok(record.result)
    }
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    sawah_agents::files::write_atomically(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Reads a JSON file this command wrote.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = sawah_engine::files::read_bounded(path, MAX_RECORD_BYTES)
        .with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is damaged", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(seed: &str) -> Inputs {
        [("seed".to_string(), seed.to_string())].into()
    }

    fn holder() -> Holder {
        Holder {
            command: "sawah levels build".into(),
        }
    }

    #[test]
    fn a_finished_stage_is_met_again_refused_on_new_inputs_and_redone_when_forced() {
        let dir = std::env::temp_dir().join(format!("sawah-work-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut work = Work::open(&dir, "ur-3", Vec::new(), &holder()).unwrap();
        let Met::ToRun(stage) = work.meet::<u32>("solve", &inputs("1")).unwrap() else {
            panic!("a new stage runs")
        };
        std::fs::write(stage.file("out.bin"), b"table").unwrap();
        work.finish("solve", &inputs("1"), &["out.bin"], 7u32, 0.1)
            .unwrap();
        assert!(matches!(
            work.meet::<u32>("solve", &inputs("1")).unwrap(),
            Met::Done(7)
        ));
        let error = work
            .meet::<u32>("solve", &inputs("2"))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("seed: 1 → 2"), "{error}");
        assert!(error.contains("--force solve"), "{error}");
        // A changed output is noticed.
        std::fs::write(stage.file("out.bin"), b"other").unwrap();
        let error = work.meet::<u32>("solve", &inputs("1")).err().unwrap();
        assert!(error.to_string().contains("changed since"), "{error}");
        // A second process is refused, naming the first.
        let second = Work::open(&dir, "ur-3", Vec::new(), &holder())
            .err()
            .unwrap();
        assert!(
            second.to_string().contains("sawah levels build"),
            "{second}"
        );
        drop(work);
        let mut forced = Work::open(&dir, "ur-3", vec!["solve".into()], &holder()).unwrap();
        assert!(matches!(
            forced.meet::<u32>("solve", &inputs("2")).unwrap(),
            Met::ToRun(_)
        ));
        assert!(!dir.join("solve").join("out.bin").exists(), "cleared");
        // Every later stage is redone too.
        assert!(matches!(
            forced.meet::<u32>("later", &inputs("2")).unwrap(),
            Met::ToRun(_)
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_route_recorded_as_the_whole_plan_summary_is_read_as_the_route() {
        let dir = std::env::temp_dir().join(format!("sawah-work-route-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let route = |text: &str| -> Inputs { [("route".to_string(), text.to_string())].into() };
        let old = "self-play (Senet is not solved whole); networks [128, 64] (1 + 2 games) and [256, 128] (3 + 4 games); hard's search from depth=1, depth=2";
        let mut work = Work::open(&dir, "senet", Vec::new(), &holder()).unwrap();
        let Met::ToRun(_) = work.meet::<u32>("hard-network", &route(old)).unwrap() else {
            panic!("a new stage runs")
        };
        work.finish("hard-network", &route(old), &[], 3u32, 0.1)
            .unwrap();
        assert!(matches!(
            work.meet::<u32>(
                "hard-network",
                &route("self-play (Senet is not solved whole)")
            )
            .unwrap(),
            Met::Done(3)
        ));
        // Another route is still refused, showing where the two differ.
        let error = work
            .meet::<u32>(
                "hard-network",
                &route("self-play (Senet is not solved at all)"),
            )
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("route: … solved whole) → … solved at all)"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_started_stage_goes_on_with_the_same_inputs_only() {
        let dir = std::env::temp_dir().join(format!("sawah-work-started-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut work = Work::open(&dir, "ur-3", Vec::new(), &holder()).unwrap();
        let Met::ToRun(stage) = work.meet::<u32>("train", &inputs("1")).unwrap() else {
            panic!()
        };
        std::fs::write(stage.file("checkpoint"), b"half").unwrap();
        // Killed here: no record. The same inputs go on where it was.
        let Met::ToRun(again) = work.meet::<u32>("train", &inputs("1")).unwrap() else {
            panic!()
        };
        assert!(again.file("checkpoint").exists());
        let error = work.meet::<u32>("train", &inputs("5")).err().unwrap();
        assert!(error.to_string().contains("was started"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
