//! Result folders merged into one set of games (`sawah elo DIR…`): shards,
//! reruns and other machines' runs of one rule set, every game once.
//!
//! Refused, with both folders named: folders of different rule sets;
//! agents that mean something else under the same name (another spec, a
//! file with other contents, an outside bot that changed version); the same
//! game with different results; and, when luck-adjusted ratings are asked
//! for, a folder played without `--luck-adjusted` or whose luck was
//! measured by another reference.

use crate::arena::luck::LuckReference;
use crate::arena::results::{self, GameRecord, Header, ResultsError};
use sawah_agents::identity::{AgentFile, portable_text};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why folders could not be merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// No folder given.
    #[error("name at least one tournament folder")]
    NoFolders,
    /// A folder's results file could not be read.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// Two folders that do not belong together.
    #[error("{0}")]
    Conflict(String),
}

/// Games merged from result folders.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Every game once (without moves: loss per move streams them from
    /// the files), in the order first read.
    pub games: Vec<GameRecord>,
    /// The agents in the order the folders first name them.
    pub order: Vec<String>,
    /// The rule set's name and digest.
    pub rules: (String, String),
    /// Games found in more than one folder, counted once.
    pub duplicates: u64,
    /// The reference every folder measured luck by, when luck-adjusted
    /// ratings were asked for.
    pub luck: Option<LuckReference>,
    /// The commands that played the folders, each once, in the order
    /// read (the folders' headers record them).
    pub commands: Vec<String>,
}

/// Merges the folders `dirs`; with `luck_adjusted`, every folder must have
/// measured its games' luck by one reference. An unfinished last line (a
/// killed run) is left out, and `note` hears of it.
pub fn merge(
    dirs: &[PathBuf],
    luck_adjusted: bool,
    note: &mut dyn FnMut(String),
) -> Result<Merged, MergeError> {
    let mut merging = Merging {
        luck_adjusted,
        ..Merging::default()
    };
    for dir in dirs {
        merging.add(dir, note)?;
    }
    let Some((name, digest, _)) = merging.rules else {
        return Err(MergeError::NoFolders);
    };
    Ok(Merged {
        games: merging.games,
        order: merging.order,
        rules: (name, digest),
        duplicates: merging.duplicates,
        luck: merging.luck.map(|(luck, _)| luck),
        commands: merging.commands,
    })
}

#[derive(Default)]
struct Merging {
    luck_adjusted: bool,
    games: Vec<GameRecord>,
    seen: HashMap<(String, String, u64), usize>,
    order: Vec<String>,
    rules: Option<(String, String, PathBuf)>,
    duplicates: u64,
    meanings: Meanings,
    luck: Option<(LuckReference, PathBuf)>,
    commands: Vec<String>,
}

fn conflict(text: String) -> MergeError {
    MergeError::Conflict(text)
}

impl Merging {
    /// Adds one folder's results: the same rule set as the folders before,
    /// agents that mean the same under the same names, and games that
    /// agree with the same games elsewhere (counted once).
    fn add(&mut self, dir: &Path, note: &mut dyn FnMut(String)) -> Result<(), MergeError> {
        let mut file_games = Vec::new();
        let file = results::read_with(dir, |mut game| {
            game.moves = Vec::new();
            file_games.push(game);
            Ok(())
        })?;
        let h = &file.header;
        self.check_rules(dir, h)?;
        if self.luck_adjusted {
            self.check_luck(dir, h)?;
        }
        for name in &h.agents {
            if !self.order.contains(name) {
                self.order.push(name.clone());
            }
        }
        self.meanings.check(dir, h)?;
        if let Some(command) = &h.command
            && !self.commands.contains(command)
        {
            self.commands.push(command.clone());
        }
        if file.partial_tail > 0 {
            note(format!(
                "{} ends in an unfinished line ({} bytes), left out",
                dir.display(),
                file.partial_tail
            ));
        }
        for g in file_games {
            match self.seen.get(&g.key()) {
                Some(&k) => {
                    let first = &self.games[k];
                    if first.winner != g.winner || first.length != g.length {
                        return Err(conflict(format!(
                            "{}: game {} vs {} with dice seed {} is also in another folder with another result; these folders disagree",
                            dir.display(),
                            g.light,
                            g.dark,
                            g.seed
                        )));
                    }
                    self.duplicates += 1;
                }
                None => {
                    self.seen.insert(g.key(), self.games.len());
                    self.games.push(g);
                }
            }
        }
        Ok(())
    }

    fn check_rules(&mut self, dir: &Path, h: &Header) -> Result<(), MergeError> {
        match &self.rules {
            None => self.rules = Some((h.rules.clone(), h.rules_digest.clone(), dir.to_path_buf())),
            Some((name, digest, first)) => {
                if *name != h.rules || *digest != h.rules_digest {
                    return Err(conflict(format!(
                        "{} holds games of {} ({}), but {} holds games of {name} ({digest}); merge one rule set at a time",
                        dir.display(),
                        h.rules,
                        h.rules_digest,
                        first.display()
                    )));
                }
            }
        }
        Ok(())
    }

    /// A luck-adjusted merge takes folders whose luck one reference measured.
    fn check_luck(&mut self, dir: &Path, h: &Header) -> Result<(), MergeError> {
        let Some(luck) = &h.luck else {
            return Err(conflict(format!(
                "{} was played without --luck-adjusted, so its games carry no luck; rate it without --luck-adjusted, or play it again with it",
                dir.display()
            )));
        };
        match &self.luck {
            None => self.luck = Some((luck.clone(), dir.to_path_buf())),
            Some((first, first_dir)) => {
                if !first.same_as(luck) {
                    return Err(conflict(format!(
                        "{}: luck measured by {} ({}), but in {} by {} ({}); luck-adjusted results compare only under one reference",
                        dir.display(),
                        luck.name,
                        files_text(luck),
                        first_dir.display(),
                        first.name,
                        files_text(first)
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A reference's spec and files, as a refusal shows them.
fn files_text(luck: &LuckReference) -> String {
    let files: Vec<String> = luck
        .files
        .iter()
        .map(|f| format!("{} SHA-256 {}", f.name, f.sha256))
        .collect();
    if files.is_empty() {
        luck.spec.clone()
    } else {
        format!("{}, {}", luck.spec, files.join(", "))
    }
}

/// What each agent name meant in the folders merged so far: its portable
/// spec (with an outside bot's `hello` identity), the files it read, and
/// the folder that said so first.
#[derive(Default)]
struct Meanings(HashMap<String, (String, Vec<AgentFile>, PathBuf)>);

/// An outside bot's `hello` identity as a header records it, as text.
fn identity_of(header: &Header, k: usize) -> String {
    header
        .identities
        .get(k)
        .and_then(Option::as_ref)
        .map(|i| format!("{} {} by {}", i.name, i.version, i.author))
        .unwrap_or_default()
}

impl Meanings {
    /// Refuses a folder whose agents mean something else under the same
    /// names (another spec, or a file with other contents).
    fn check(&mut self, dir: &Path, header: &Header) -> Result<(), MergeError> {
        for (k, name) in header.agents.iter().enumerate() {
            let spec = header
                .specs
                .get(k)
                .map(|s| portable_text(s))
                .unwrap_or_default();
            // The hello identity travels with the spec, so a bot that
            // changed version is not merged with itself.
            let identity = identity_of(header, k);
            let spec = if identity.is_empty() {
                spec
            } else {
                format!("{spec} (hello: {identity})")
            };
            let files = header.files.get(k).cloned().unwrap_or_default();
            let Some((first_spec, first_files, first_dir)) = self.0.get(name) else {
                self.0
                    .insert(name.clone(), (spec, files, dir.to_path_buf()));
                continue;
            };
            if *first_spec != spec {
                let bare = |s: &str| s.split(" (hello: ").next().unwrap_or_default().to_string();
                let what = crate::arena::results::spec_difference(&bare(first_spec), &bare(&spec))
                    .map(|what| format!(" ({what})"))
                    .unwrap_or_default();
                return Err(conflict(format!(
                    "{}: {name} is {spec}, but in {} it is {first_spec}{what}; merge folders whose agents are the same",
                    dir.display(),
                    first_dir.display()
                )));
            }
            for file in &files {
                let first = first_files
                    .iter()
                    .find(|f| f.option == file.option && f.name == file.name);
                if let Some(first) = first
                    && first.sha256 != file.sha256
                {
                    return Err(conflict(format!(
                        "{}: the {} file {} of {name} has SHA-256 {}, but in {} it has SHA-256 {}; it changed between the runs",
                        dir.display(),
                        file.option,
                        file.name,
                        file.sha256,
                        first_dir.display(),
                        first.sha256
                    )));
                }
            }
        }
        Ok(())
    }
}
