//! The results file of a tournament: `results.jsonl` in its folder.
//!
//! The first line is a [`Header`] (what was scheduled: rule set, agents,
//! format, games, seed, shard); every further line is one finished
//! [`GameRecord`], appended and flushed as the game ends. A process killed
//! mid-write leaves at most one partial last line, which the next run cuts
//! off (and says so) before it appends; every complete line is kept. The
//! header is written atomically (temporary file, then rename), and a rerun
//! refuses a folder whose header differs from what it was asked to play.
//!
//! Only one run writes a folder at a time: a run holds an exclusive lock on
//! `results.lock` beside the results for as long as it plays, and a second
//! run on the same folder (another terminal, a forgotten background job) is
//! refused at once. Two writers would each append at their own idea of the
//! file's end and splice their lines into each other.

use crate::arena::gamelog::{AgentFailure, PlayedGame};
use crate::arena::luck::{GameLuck, LuckReference};
use sawah_agents::identity::{AgentFile, portable_text};
use sawah_engine::Player;
use sawah_engine::files::{BoundedLine, read_line_bounded};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The results file's name inside a tournament folder.
pub const RESULTS_FILE: &str = "results.jsonl";
/// The file a run locks while it writes the folder (it stays, empty).
pub const LOCK_FILE: &str = "results.lock";
/// What the header's `kind` says.
pub const KIND: &str = "sawah-tournament-results";
/// The format version this build writes: 2, where each game says how it
/// ended (`"ending"`). Files of version 1 (no `"ending"`: a stopped game
/// was `"winner": null`, a forfeit a game with a `"failure"`) are read,
/// their endings told from those fields, and a resumed one goes on in its
/// own version, so the build that started it still reads it.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format version this build reads.
pub const OLDEST_VERSION: u32 = 1;
/// The longest line a results file may hold, its newline included: a game
/// of the most rolls a game may take (`MAX_ROLLS`, 100,000) is about 1 MB
/// as a line, so a longer one is damage, refused naming its line.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// What a results file holds: the schedule it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Always [`KIND`].
    pub kind: String,
    /// Always [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The rule set id.
    pub rules: String,
    /// The rule set's digest (`Codec::rules_digest`), so two rule sets
    /// sharing a name (a rule file) are not merged.
    pub rules_digest: String,
    /// The agents' names (as given), in schedule order.
    pub agents: Vec<String>,
    /// The agents' canonical specs, in the same order (a preset such as
    /// `medium` resolved to what it meant when the file was started), with
    /// every file they read named by its file name alone, so that the same
    /// agents give the same header wherever the command runs (files
    /// written before 0.1.0's portable identities hold paths; they are
    /// compared without their folders).
    pub specs: Vec<String>,
    /// The files each agent reads (model, weights, table) with their
    /// checksums, in agent order: what a file name stood for. Empty in files
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<Vec<AgentFile>>,
    /// What each outside bot said of itself in answer to `hello`, in agent
    /// order (`null` for our agents and for bots that said nothing); absent
    /// when no agent said anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identities: Vec<Option<crate::arena::outside::Identity>>,
    /// `round-robin` or `gauntlet`.
    pub format: String,
    /// Games per pairing (whole pairs).
    pub games_per_pairing: u64,
    /// The tournament seed.
    pub seed: u64,
    /// The share of the schedule, `K/N`.
    pub shard: String,
    /// The version of the code that started the file.
    pub code_version: String,
    /// The reference that measured every game's luck, in a luck-adjusted
    /// run (`--luck-adjusted`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub luck: Option<LuckReference>,
    /// The command that started the file, as it can be run again (its
    /// working folder named, its shard as resolved); absent in files of
    /// runs that were not started by a command, and in older ones. Not
    /// part of what the file is: a resume by another command is not
    /// refused for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// How a game ended, as the results file says it (`"ending"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnding {
    /// A side bore off (Senet: brought home) every piece: `winner` won.
    Won,
    /// The game reached the roll limit (`MAX_ROLLS`) undecided: no
    /// winner, half a point each.
    RollLimit,
    /// An agent crashed, timed out or played an illegal move (its
    /// `failure`): the other side, `winner`, wins.
    Forfeit,
}

impl GameEnding {
    /// The ending a game of format version 1 had, told from its winner and
    /// failure (that version wrote no `"ending"`).
    pub fn of(winner: Option<Player>, failure: Option<&AgentFailure>) -> GameEnding {
        match (winner, failure) {
            (_, Some(_)) => GameEnding::Forfeit,
            (None, None) => GameEnding::RollLimit,
            (Some(_), None) => GameEnding::Won,
        }
    }

    /// Why `winner` and `failure` cannot go with this ending, if they
    /// cannot.
    fn contradiction(
        self,
        winner: Option<Player>,
        failure: Option<&AgentFailure>,
    ) -> Option<&'static str> {
        match (self, winner, failure) {
            (GameEnding::Won, Some(_), None)
            | (GameEnding::RollLimit, None, None)
            | (GameEnding::Forfeit, Some(_), Some(_)) => None,
            (GameEnding::Won, None, _) => Some("\"ending\" \"won\" with no winner"),
            (GameEnding::Won, Some(_), Some(_)) => Some("\"ending\" \"won\" with a failure"),
            (GameEnding::RollLimit, Some(_), _) => Some("\"ending\" \"roll_limit\" with a winner"),
            (GameEnding::RollLimit, None, Some(_)) => {
                Some("\"ending\" \"roll_limit\" with a failure")
            }
            (GameEnding::Forfeit, None, _) => Some("\"ending\" \"forfeit\" with no winner"),
            (GameEnding::Forfeit, Some(_), None) => Some("\"ending\" \"forfeit\" with no failure"),
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StoredGame")]
pub struct GameRecord {
    /// The rule set id.
    pub rules: String,
    /// The spec of the agent that moved first.
    pub light: String,
    /// The spec of the agent that moved second.
    pub dark: String,
    /// The pair this game belongs to (both games of a pair share dice).
    pub pair: u64,
    /// The dice seed.
    pub seed: u64,
    /// How the game ended.
    pub ending: GameEnding,
    /// The winner; `null` for a game stopped at the roll limit.
    pub winner: Option<Player>,
    /// Rolls made.
    pub length: u64,
    /// Every roll and move, as tokens (see [`crate::arena::gamelog`]).
    pub moves: Vec<String>,
    /// An agent that crashed or played an illegal move (and so lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<AgentFailure>,
    /// Each side's luck in the game, by the header's reference, in a
    /// luck-adjusted run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub luck: Option<RecordedLuck>,
}

/// A game line as written, in either format version: [`GameRecord`]
/// with its `"ending"` absent in version 1, and checked against the
/// winner and failure when present.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredGame {
    rules: String,
    light: String,
    dark: String,
    pair: u64,
    seed: u64,
    #[serde(default)]
    ending: Option<GameEnding>,
    winner: Option<Player>,
    length: u64,
    moves: Vec<String>,
    #[serde(default)]
    failure: Option<AgentFailure>,
    #[serde(default)]
    luck: Option<RecordedLuck>,
}

impl TryFrom<StoredGame> for GameRecord {
    type Error = &'static str;

    fn try_from(game: StoredGame) -> Result<GameRecord, &'static str> {
        let told = GameEnding::of(game.winner, game.failure.as_ref());
        let ending = game.ending.unwrap_or(told);
        if let Some(why) = ending.contradiction(game.winner, game.failure.as_ref()) {
            return Err(why);
        }
        Ok(GameRecord {
            rules: game.rules,
            light: game.light,
            dark: game.dark,
            pair: game.pair,
            seed: game.seed,
            ending,
            winner: game.winner,
            length: game.length,
            moves: game.moves,
            failure: game.failure,
            luck: game.luck,
        })
    }
}

/// A game's luck as the results file keeps it: each side's, in percentage
/// points of win probability (the review's `luck_pp`). Light's
/// luck-adjusted score is its result − `light_pp`/100 + `dark_pp`/100.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedLuck {
    /// Light's luck.
    pub light_pp: f64,
    /// Dark's luck.
    pub dark_pp: f64,
}

impl From<GameLuck> for RecordedLuck {
    fn from(luck: GameLuck) -> RecordedLuck {
        RecordedLuck {
            light_pp: 100.0 * luck.light,
            dark_pp: 100.0 * luck.dark,
        }
    }
}

impl From<RecordedLuck> for GameLuck {
    fn from(luck: RecordedLuck) -> GameLuck {
        GameLuck {
            light: luck.light_pp / 100.0,
            dark: luck.dark_pp / 100.0,
        }
    }
}

impl GameRecord {
    /// The record of `played`, a game of `rules` between `light` and
    /// `dark` in pair `pair` with dice seed `seed` (its luck not measured).
    pub fn of_played(
        rules: &str,
        (light, dark): (&str, &str),
        (pair, seed): (u64, u64),
        played: PlayedGame,
    ) -> GameRecord {
        GameRecord {
            rules: rules.to_string(),
            light: light.to_string(),
            dark: dark.to_string(),
            pair,
            seed,
            ending: GameEnding::of(played.outcome.winner, played.failure.as_ref()),
            winner: played.outcome.winner,
            length: played.outcome.rolls,
            moves: played.moves,
            failure: played.failure,
            luck: None,
        }
    }

    /// The identity of the game: who sat where, with which dice. A game is
    /// a function of these, so two records with one key are the same game.
    pub fn key(&self) -> (String, String, u64) {
        (self.light.clone(), self.dark.clone(), self.seed)
    }

    /// Light's score: 1, 0, or ½ for a stopped game.
    pub fn light_score(&self) -> f64 {
        match self.winner {
            Some(Player::Light) => 1.0,
            Some(Player::Dark) => 0.0,
            None => 0.5,
        }
    }

    /// Light's luck-adjusted score, when the game's luck was measured.
    pub fn adjusted_light_score(&self) -> Option<f64> {
        self.luck
            .map(|luck| GameLuck::from(luck).adjusted(self.light_score(), true))
    }
}

/// What went wrong with a results file.
#[derive(Debug, Error)]
pub enum ResultsError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Another run holds the folder.
    #[error(
        "{path} is locked by another run writing this folder (a tournament with the same --out still going?); wait for it or stop it, or use another --out folder"
    )]
    Busy {
        /// The lock file.
        path: String,
    },
    /// A line that is not what it should be.
    #[error("{path}, line {line}: {message}")]
    Corrupt {
        /// The file.
        path: String,
        /// The line (from 1).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The folder holds another tournament.
    #[error(
        "{path} belongs to another tournament ({field}: it has {found}, this run has {expected}); use another --out folder, or the same settings to resume"
    )]
    Mismatch {
        /// The file.
        path: String,
        /// The setting that differs.
        field: String,
        /// This run's value.
        expected: String,
        /// The file's value.
        found: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ResultsError + '_ {
    move |source| ResultsError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// A results file read back.
#[derive(Clone, Debug)]
pub struct Results {
    /// Its header.
    pub header: Header,
    /// Its games, in file order.
    pub games: Vec<GameRecord>,
    /// Bytes of an unfinished last line (left by a killed run), if any.
    pub partial_tail: u64,
    /// Length of the file up to the end of its last complete line.
    pub complete_len: u64,
}

/// Reads `dir/results.jsonl`, every game with its moves.
pub fn read(dir: &Path) -> Result<Results, ResultsError> {
    let mut games = Vec::new();
    let shape = read_with(dir, |game| {
        games.push(game);
        Ok(())
    })?;
    Ok(Results {
        header: shape.header,
        games,
        partial_tail: shape.partial_tail,
        complete_len: shape.complete_len,
    })
}

/// A results file's header and extent, from [`read_with`].
#[derive(Clone, Debug)]
pub struct FileShape {
    /// Its header.
    pub header: Header,
    /// Bytes of an unfinished last line, if any.
    pub partial_tail: u64,
    /// Length up to the end of its last complete line.
    pub complete_len: u64,
}

/// Streams the games of `dir/results.jsonl` to `on_game` in file order
/// (memory stays flat however many games the file holds), checking every
/// line; returns the header and the file's extent.
pub fn read_with(
    dir: &Path,
    mut on_game: impl FnMut(GameRecord) -> Result<(), ResultsError>,
) -> Result<FileShape, ResultsError> {
    let path = dir.join(RESULTS_FILE);
    let file = sawah_engine::files::open_regular(&path).map_err(io_error(&path))?;
    let shown = path.display().to_string();
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    let mut number = 0;
    let mut header: Option<Header> = None;
    let mut complete_len = 0u64;
    let mut partial_tail = 0u64;
    loop {
        number += 1;
        let corrupt = |message: String| ResultsError::Corrupt {
            path: shown.clone(),
            line: number,
            message,
        };
        let read = match read_line_bounded(&mut reader, &mut bytes, MAX_LINE_BYTES)
            .map_err(io_error(&path))?
        {
            BoundedLine::End => break,
            BoundedLine::Line(read) => read,
            BoundedLine::TooLong { .. } => {
                return Err(corrupt(format!(
                    "longer than {} MiB (no game is: a game of the most rolls is about 1 MB)",
                    MAX_LINE_BYTES >> 20
                )));
            }
        };
        if bytes.last() != Some(&b'\n') {
            // A partial last line: what a kill in mid-write leaves.
            partial_tail = read as u64;
            break;
        }
        let line = std::str::from_utf8(&bytes).map_err(|e| corrupt(format!("not UTF-8: {e}")))?;
        match &header {
            None => {
                let h: Header = serde_json::from_str(line)
                    .map_err(|e| corrupt(format!("not a results header: {e}")))?;
                if h.kind != KIND {
                    return Err(corrupt(format!("kind {:?}, expected {KIND:?}", h.kind)));
                }
                if !(OLDEST_VERSION..=FORMAT_VERSION).contains(&h.format_version) {
                    return Err(corrupt(format!(
                        "format version {}; this build reads {OLDEST_VERSION} to {FORMAT_VERSION}",
                        h.format_version
                    )));
                }
                header = Some(h);
            }
            Some(h) => {
                let game: GameRecord = serde_json::from_str(line).map_err(|e| {
                    corrupt(format!(
                        "not a game record: {e} (deleting the line is safe: a resumed run plays that game again from its seed)"
                    ))
                })?;
                if game.rules != h.rules {
                    return Err(corrupt(format!(
                        "a game of {}, in a file of {}",
                        game.rules, h.rules
                    )));
                }
                if game.luck.is_some() != h.luck.is_some() {
                    return Err(corrupt(if h.luck.is_some() {
                        "a game without its luck, in a luck-adjusted run (deleting the line is safe: a resumed run plays that game again from its seed)".to_string()
                    } else {
                        "a game with its luck, in a run that measured none".to_string()
                    }));
                }
                on_game(game)?;
            }
        }
        complete_len += read as u64;
    }
    let header = header.ok_or_else(|| ResultsError::Corrupt {
        path: shown,
        line: 1,
        message: "no header line (empty file)".into(),
    })?;
    Ok(FileShape {
        header,
        partial_tail,
        complete_len,
    })
}

/// Appends game records to a results file, one flushed line each.
#[derive(Debug)]
pub struct ResultsWriter {
    file: File,
    path: PathBuf,
    /// The file's format version: a file of version 1 resumed by this
    /// build goes on without `"ending"`, so the build that started it
    /// still reads it.
    format_version: u32,
    /// Held for the writer's life; the lock goes when it is dropped.
    _lock: File,
}

/// Opens `dir/results.jsonl` for a run with `header`: locks the folder
/// against other runs, creates the file (header written atomically) or, if
/// it exists, checks that its header matches and cuts off a partial last
/// line. Returns the writer, the games already played (without their
/// moves, to keep memory small) and the bytes cut off.
pub fn open_for_run(
    dir: &Path,
    header: &Header,
) -> Result<(ResultsWriter, Vec<GameRecord>, u64), ResultsError> {
    sawah_engine::files::create_dir_all(dir).map_err(io_error(dir))?;
    let lock = lock_folder(dir)?;
    let path = dir.join(RESULTS_FILE);
    if !path.exists() {
        let mut text = serde_json::to_string(header).map_err(|e| ResultsError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        text.push('\n');
        sawah_agents::files::write_atomically(&path, text.as_bytes()).map_err(io_error(&path))?;
    }
    let mut games = Vec::new();
    let existing = read_with(dir, |mut game| {
        game.moves = Vec::new();
        games.push(game);
        Ok(())
    })?;
    check_header(&path, header, &existing.header)?;
    let mut file =
        sawah_agents::files::open_for_writing(&path, sawah_agents::files::Writing::Existing)
            .map_err(io_error(&path))?;
    if existing.partial_tail > 0 {
        file.set_len(existing.complete_len)
            .map_err(io_error(&path))?;
    }
    file.seek(SeekFrom::End(0)).map_err(io_error(&path))?;
    let writer = ResultsWriter {
        file,
        path,
        format_version: existing.header.format_version,
        _lock: lock,
    };
    Ok((writer, games, existing.partial_tail))
}

/// Takes the folder's exclusive lock ([`LOCK_FILE`], released when the
/// returned file is dropped or the process ends), or says that another run
/// holds it.
fn lock_folder(dir: &Path) -> Result<File, ResultsError> {
    let path = dir.join(LOCK_FILE);
    match sawah_agents::files::try_lock_folder(dir, LOCK_FILE) {
        Ok(Some(lock)) => Ok(lock),
        Ok(None) => Err(ResultsError::Busy {
            path: path.display().to_string(),
        }),
        Err(source) => Err(io_error(&path)(source)),
    }
}

/// The first file that two headers of the same agents record with
/// different contents: the agent, and the file as each header has it.
/// Headers without checksums (older files) agree with any.
pub fn changed_file<'h>(
    first: &'h Header,
    second: &'h Header,
) -> Option<(String, &'h AgentFile, &'h AgentFile)> {
    for (k, (a, b)) in first.files.iter().zip(&second.files).enumerate() {
        for file in a {
            let other = b
                .iter()
                .find(|o| o.option == file.option && o.name == file.name);
            if let Some(other) = other
                && other.sha256 != file.sha256
            {
                let agent = first.agents.get(k).cloned().unwrap_or_default();
                return Some((agent, file, other));
            }
        }
    }
    None
}

/// What differs between two agents' portable records, in words: the
/// first field of an outside bot's record that differs, with a variable
/// of its environment named (`its env GREEDY_FAULT: sha256:… → …`), or
/// `None` when they are the same. Builtin specs, which are not objects,
/// differ as wholes (`its spec`).
pub fn spec_difference(expected: &str, found: &str) -> Option<String> {
    if portable_text(expected) == portable_text(found) {
        return None;
    }
    let object = |text: &str| match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    };
    let shown = |value: Option<&serde_json::Value>| {
        value.map_or_else(|| "(none)".to_string(), |v| v.to_string())
    };
    let (Some(a), Some(b)) = (object(expected), object(found)) else {
        return Some(format!("its spec: {expected} → {found}"));
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for key in keys {
        let (x, y) = (a.get(key), b.get(key));
        if x == y {
            continue;
        }
        if let (Some(serde_json::Value::Object(x)), Some(serde_json::Value::Object(y))) = (x, y) {
            let inner: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            if let Some(name) = inner.into_iter().find(|k| x.get(*k) != y.get(*k)) {
                return Some(format!(
                    "its {key} {name}: {} → {}",
                    shown(x.get(name)),
                    shown(y.get(name))
                ));
            }
        }
        return Some(format!("its {key}: {} → {}", shown(x), shown(y)));
    }
    Some(format!("its spec: {expected} → {found}"))
}

fn check_header(path: &Path, expected: &Header, found: &Header) -> Result<(), ResultsError> {
    let mismatch = |field: &str, e: String, f: String| ResultsError::Mismatch {
        path: path.display().to_string(),
        field: field.to_string(),
        expected: e,
        found: f,
    };
    if expected.rules != found.rules || expected.rules_digest != found.rules_digest {
        return Err(mismatch(
            "rules",
            format!("{} ({})", expected.rules, expected.rules_digest),
            format!("{} ({})", found.rules, found.rules_digest),
        ));
    }
    if expected.agents != found.agents {
        return Err(mismatch(
            "agents",
            expected.agents.join(","),
            found.agents.join(","),
        ));
    }
    for ((name, e), f) in expected
        .agents
        .iter()
        .zip(&expected.specs)
        .zip(&found.specs)
    {
        if let Some(what) = spec_difference(e, f) {
            return Err(mismatch(
                &format!("agent {name}: {what} (a bot or preset changed)"),
                portable_text(e),
                portable_text(f),
            ));
        }
    }
    let portable = |specs: &[String]| specs.iter().map(|s| portable_text(s)).collect::<Vec<_>>();
    if portable(&expected.specs) != portable(&found.specs) {
        return Err(mismatch(
            "agent specs (a preset changed meaning?)",
            portable(&expected.specs).join(","),
            portable(&found.specs).join(","),
        ));
    }
    if let Some((agent, e, f)) = changed_file(expected, found) {
        return Err(mismatch(
            &format!("{} file {} of {agent}", e.option, e.name),
            format!("SHA-256 {}", e.sha256),
            format!("SHA-256 {}", f.sha256),
        ));
    }
    if expected.identities != found.identities {
        let shown = |h: &Header| serde_json::to_string(&h.identities).unwrap_or_default();
        return Err(mismatch(
            "outside bots' hello identities (a bot changed version?)",
            shown(expected),
            shown(found),
        ));
    }
    if !same_luck(&expected.luck, &found.luck) {
        let shown = |luck: &Option<LuckReference>| {
            luck.as_ref().map_or("no luck measured".to_string(), |l| {
                let files: Vec<String> = l
                    .files
                    .iter()
                    .map(|f| format!("{} SHA-256 {}", f.name, f.sha256))
                    .collect();
                format!("{} [{}]", l.spec, files.join(", "))
            })
        };
        return Err(mismatch(
            "luck reference (--luck-adjusted, --reference, --table)",
            shown(&expected.luck),
            shown(&found.luck),
        ));
    }
    for (field, e, f) in [
        ("format", expected.format.clone(), found.format.clone()),
        (
            "games",
            expected.games_per_pairing.to_string(),
            found.games_per_pairing.to_string(),
        ),
        ("seed", expected.seed.to_string(), found.seed.to_string()),
        ("shard", expected.shard.clone(), found.shard.clone()),
    ] {
        if e != f {
            return Err(mismatch(field, e, f));
        }
    }
    Ok(())
}

/// Whether two runs measured luck alike: both not at all, or both by the
/// same reference reading the same files.
pub fn same_luck(a: &Option<LuckReference>, b: &Option<LuckReference>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.same_as(b),
        _ => false,
    }
}

impl ResultsWriter {
    /// Appends one game and flushes it to the operating system, so a kill
    /// of this process loses nothing that was reported.
    pub fn append(&mut self, game: &GameRecord) -> Result<(), ResultsError> {
        let io = |e: serde_json::Error| ResultsError::Io {
            path: self.path.display().to_string(),
            source: std::io::Error::other(e),
        };
        let mut line = if self.format_version < 2 {
            let mut fields = serde_json::to_value(game).map_err(io)?;
            if let Some(map) = fields.as_object_mut() {
                map.remove("ending");
            }
            serde_json::to_string(&fields).map_err(io)?
        } else {
            serde_json::to_string(game).map_err(io)?
        };
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(io_error(&self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn header() -> Header {
        Header {
            kind: KIND.into(),
            format_version: FORMAT_VERSION,
            rules: "ur".into(),
            rules_digest: "0123456789abcdef".into(),
            agents: vec!["random".into(), "heuristic".into()],
            specs: vec!["random".into(), "heuristic".into()],
            files: Vec::new(),
            identities: Vec::new(),
            format: "round-robin".into(),
            games_per_pairing: 4,
            seed: 1,
            shard: "1/1".into(),
            code_version: "test".into(),
            luck: None,
            command: None,
        }
    }

    fn game(seed: u64) -> GameRecord {
        GameRecord {
            rules: "ur".into(),
            light: "random".into(),
            dark: "heuristic".into(),
            pair: seed,
            seed,
            ending: GameEnding::Won,
            winner: Some(Player::Dark),
            length: 2,
            moves: vec!["0:pass".into(), "0:pass".into()],
            failure: None,
            luck: None,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sawah-results-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn games_survive_a_partial_last_line_and_resume_appends() {
        let dir = scratch("partial");
        let (mut writer, games, cut) = open_for_run(&dir, &header()).unwrap();
        assert!(games.is_empty() && cut == 0);
        writer.append(&game(1)).unwrap();
        writer.append(&game(2)).unwrap();
        drop(writer);
        // A kill in mid-write: half a line at the end.
        let path = dir.join(RESULTS_FILE);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let partial = br#"{"rules":"ur","light":"ran"#;
        file.write_all(partial).unwrap();
        drop(file);
        let (mut writer, games, cut) = open_for_run(&dir, &header()).unwrap();
        let seeds: Vec<u64> = games.iter().map(|g| g.seed).collect();
        assert_eq!(seeds, [1, 2]);
        assert_eq!(cut, partial.len() as u64);
        writer.append(&game(3)).unwrap();
        let back = read(&dir).unwrap();
        assert_eq!(back.games, vec![game(1), game(2), game(3)]);
        assert_eq!(back.partial_tail, 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_second_run_on_a_folder_in_use_is_refused_until_the_first_ends() {
        let dir = scratch("busy");
        let (mut first, _, _) = open_for_run(&dir, &header()).unwrap();
        first.append(&game(1)).unwrap();
        let err = open_for_run(&dir, &header()).unwrap_err();
        assert!(matches!(err, ResultsError::Busy { .. }), "{err}");
        assert!(err.to_string().contains("another run"), "{err}");
        // The refused run touched nothing: the first one goes on writing.
        first.append(&game(2)).unwrap();
        drop(first);
        let (_, games, cut) = open_for_run(&dir, &header()).unwrap();
        let seeds: Vec<u64> = games.iter().map(|g| g.seed).collect();
        assert_eq!((seeds, cut), (vec![1, 2], 0));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_tournament_in_the_folder_is_refused_by_name() {
        let dir = scratch("mismatch");
        open_for_run(&dir, &header()).unwrap();
        let mut other = header();
        other.seed = 2;
        let err = open_for_run(&dir, &other).unwrap_err().to_string();
        assert!(
            err.contains("seed") && err.contains("another tournament"),
            "{err}"
        );
        let mut other = header();
        other.agents.push("hard".into());
        other.specs.push("expectiminimax:depth=2".into());
        let err = open_for_run(&dir, &other).unwrap_err().to_string();
        assert!(err.contains("agents"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_line_in_the_middle_is_named() {
        let dir = scratch("damaged");
        let (mut writer, _, _) = open_for_run(&dir, &header()).unwrap();
        writer.append(&game(1)).unwrap();
        drop(writer);
        let path = dir.join(RESULTS_FILE);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"{not json}\n").unwrap();
        drop(file);
        let err = read(&dir).unwrap_err().to_string();
        assert!(
            err.contains("line 3")
                && err.contains("not a game record")
                && err.contains("deleting the line is safe"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_longer_than_any_game_is_refused_naming_it() {
        let dir = scratch("long");
        fs::create_dir_all(&dir).unwrap();
        let mut text = serde_json::to_string(&header()).unwrap();
        text.push('\n');
        text.push_str(&serde_json::to_string(&game(1)).unwrap());
        text.push('\n');
        text.push_str(&" ".repeat(MAX_LINE_BYTES + 1));
        text.push_str("\n{}\n");
        fs::write(dir.join(RESULTS_FILE), text).unwrap();
        let err = read(&dir).unwrap_err().to_string();
        assert!(
            err.contains("line 3") && err.contains("longer than 4 MiB"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    fn failure() -> AgentFailure {
        AgentFailure {
            seat: Player::Light,
            kind: None,
            message: "timed out".into(),
        }
    }

    #[test]
    fn every_ending_is_written_as_what_it_is_and_read_back() {
        let won = game(1);
        let stopped = GameRecord {
            ending: GameEnding::RollLimit,
            winner: None,
            ..game(2)
        };
        let forfeit = GameRecord {
            ending: GameEnding::Forfeit,
            failure: Some(failure()),
            ..game(3)
        };
        for (record, word) in [
            (&won, "won"),
            (&stopped, "roll_limit"),
            (&forfeit, "forfeit"),
        ] {
            let line = serde_json::to_string(record).unwrap();
            assert!(line.contains(&format!("\"ending\":\"{word}\"")), "{line}");
            assert_eq!(&serde_json::from_str::<GameRecord>(&line).unwrap(), record);
        }
        assert_eq!(stopped.light_score(), 0.5);
    }

    #[test]
    fn an_ending_that_contradicts_the_winner_or_failure_is_refused_naming_its_line() {
        for (ending, winner, failure, says) in [
            ("won", "null", "", "\"won\" with no winner"),
            ("roll_limit", "\"dark\"", "", "\"roll_limit\" with a winner"),
            ("forfeit", "\"dark\"", "", "\"forfeit\" with no failure"),
            (
                "won",
                "\"dark\"",
                r#","failure":{"seat":"light","message":"x"}"#,
                "\"won\" with a failure",
            ),
        ] {
            let dir = scratch("contradiction");
            fs::create_dir_all(&dir).unwrap();
            let line = format!(
                r#"{{"rules":"ur","light":"random","dark":"heuristic","pair":1,"seed":1,"ending":"{ending}","winner":{winner},"length":2,"moves":[]{failure}}}"#
            );
            let text = format!("{}\n{line}\n", serde_json::to_string(&header()).unwrap());
            fs::write(dir.join(RESULTS_FILE), text).unwrap();
            let err = read(&dir).unwrap_err().to_string();
            assert!(err.contains("line 2") && err.contains(says), "{err}");
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[test]
    fn a_version_1_file_is_read_with_its_endings_told_and_resumed_in_version_1() {
        let dir = scratch("version-1");
        fs::create_dir_all(&dir).unwrap();
        let old = Header {
            format_version: 1,
            ..header()
        };
        let line = |seed: u64, winner: &str, failure: &str| {
            format!(
                r#"{{"rules":"ur","light":"random","dark":"heuristic","pair":{seed},"seed":{seed},"winner":{winner},"length":2,"moves":[]{failure}}}"#
            )
        };
        let text = format!(
            "{}\n{}\n{}\n{}\n",
            serde_json::to_string(&old).unwrap(),
            line(1, "\"dark\"", ""),
            line(2, "null", ""),
            line(
                3,
                "\"dark\"",
                r#","failure":{"seat":"light","message":"x"}"#
            ),
        );
        fs::write(dir.join(RESULTS_FILE), text).unwrap();
        let endings: Vec<GameEnding> = read(&dir).unwrap().games.iter().map(|g| g.ending).collect();
        assert_eq!(
            endings,
            [GameEnding::Won, GameEnding::RollLimit, GameEnding::Forfeit]
        );
        // Resumed by this build, the file stays what its header says.
        let (mut writer, games, _) = open_for_run(&dir, &header()).unwrap();
        assert_eq!(games.len(), 3);
        writer.append(&game(4)).unwrap();
        drop(writer);
        let text = fs::read_to_string(dir.join(RESULTS_FILE)).unwrap();
        assert!(!text.contains("\"ending\""), "{text}");
        let back = read(&dir).unwrap();
        assert_eq!(back.header.format_version, 1);
        assert_eq!(back.games[3], game(4));
        // A version this build does not know is refused, naming both.
        let future = text.replacen("\"format_version\":1", "\"format_version\":3", 1);
        fs::write(dir.join(RESULTS_FILE), future).unwrap();
        let err = read(&dir).unwrap_err().to_string();
        assert!(
            err.contains("format version 3; this build reads 1 to 2"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A header or game field a damaged or hand-edited file may hold.
    fn any_field() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        prop_oneof![
            Just(serde_json::Value::Null),
            (-2i64..5).prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            "[a-z0-9:\\-]{0,6}".prop_map(serde_json::Value::from),
            Just(serde_json::json!(["0:pass", "x"])),
            Just(serde_json::json!({"kind": "timeout", "agent": "random"})),
            Just(serde_json::json!("sawah-tournament-results")),
        ]
    }

    /// Sets the field numbered `at` (of every field in `value`) to `to`.
    fn set_field(
        value: &mut serde_json::Value,
        at: proptest::sample::Index,
        to: serde_json::Value,
    ) {
        if let Some(map) = value.as_object_mut() {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = keys[at.index(keys.len())].clone();
            map.insert(key, to);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(
            std::env::var("SAWAH_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(500)
        ))]

        /// A results file whose header or games have a field changed is
        /// read or refused naming a line of the file, never a panic; what
        /// is read holds only games of the header's rule set.
        #[test]
        fn any_edited_results_file_is_read_or_refused_naming_the_line(
            edits in proptest::collection::vec(
                (0usize..4, proptest::prelude::any::<proptest::sample::Index>(), any_field()),
                0..4,
            ),
            cut in proptest::option::of(0usize..1200),
        ) {
            let mut lines = vec![serde_json::to_value(header()).unwrap()];
            lines.extend((1..4).map(|seed| serde_json::to_value(game(seed)).unwrap()));
            for (line, at, to) in edits {
                set_field(&mut lines[line], at, to);
            }
            let mut text: String = lines.iter().map(|line| format!("{line}\n")).collect();
            if let Some(cut) = cut {
                text.truncate(cut.min(text.len()));
            }
            let dir = scratch("fuzz-edited");
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(RESULTS_FILE), &text).unwrap();
            match read(&dir) {
                Ok(results) => {
                    proptest::prop_assert!(results.games.iter().all(|g| g.rules == results.header.rules));
                    proptest::prop_assert!(results.games.len() <= 3);
                }
                Err(error) => {
                    let message = error.to_string();
                    proptest::prop_assert!(message.contains(RESULTS_FILE), "{}", message);
                }
            }
            fs::remove_dir_all(&dir).unwrap();
        }

        /// Whatever bytes a results file holds, reading it gives records or
        /// an error, never a panic.
        #[test]
        fn arbitrary_files_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let dir = scratch("fuzz");
            fs::create_dir_all(&dir).unwrap();
            let mut text = serde_json::to_string(&header()).unwrap();
            text.push('\n');
            let mut content = text.into_bytes();
            content.extend_from_slice(&bytes);
            fs::write(dir.join(RESULTS_FILE), &content).unwrap();
            let _ = read(&dir);
            fs::write(dir.join(RESULTS_FILE), &bytes).unwrap();
            let _ = read(&dir);
            fs::remove_dir_all(&dir).unwrap();
        }
    }
}
