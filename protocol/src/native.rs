//! Setting a bot up from files, natively: the thin layer over [`Bot`] that
//! `sawah bot` and `sawah serve` share. Everything is opened and checked at
//! start, so a bad model or table stops the start with a message instead of
//! failing the first request.
//!
//! A bot that trusts its requests (`sawah bot` driven by a local program)
//! also reads any model, table or weights file a request names by path. An
//! untrusted one (`sawah serve`, `sawah bot --untrusted`) reads nothing
//! after the start: requests name files only by level or by the file name
//! of something it was started with, and its errors list only those names.

use crate::Bot;
use sawah_agents::assets::FileAssets;
use sawah_agents::endgame::EndgameTable;
use sawah_agents::manifest::Models;
use sawah_agents::neural::NeuralNet;
use sawah_agents::search::Stop;
use sawah_agents::table::Table;
use sawah_engine::registry::{AnyGame, Registry};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The largest table header read to learn a table's rule set.
const MAX_TABLE_HEADER: u64 = 1 << 20;

/// A solved table to serve: `RULES=FILE`, or `FILE` (its header names the
/// rule set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableArg {
    /// The rule set, when given.
    pub rules: Option<String>,
    /// The file.
    pub path: PathBuf,
}

impl std::str::FromStr for TableArg {
    type Err = String;

    /// `ur=tables/ur.sawah` or `tables/ur.sawah`: text before the first
    /// `=` is a rule set name unless it holds a path separator.
    fn from_str(text: &str) -> Result<TableArg, String> {
        if text.is_empty() {
            return Err("a table is FILE or RULES=FILE".into());
        }
        Ok(match text.split_once('=') {
            Some((rules, path)) if !rules.contains(['/', '\\']) && !rules.is_empty() => TableArg {
                rules: Some(rules.to_string()),
                path: PathBuf::from(path),
            },
            _ => TableArg {
                rules: None,
                path: PathBuf::from(text),
            },
        })
    }
}

/// What a native bot is started with.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// The shipped models (levels resolve through their manifest); every
    /// other `.safetensors` file in their folder is loaded too.
    pub models: Option<Models>,
    /// Default solved tables, one per rule set.
    pub tables: Vec<TableArg>,
    /// Read nothing a request names by path (see the module docs).
    pub untrusted: bool,
    /// The cost bound of one request.
    pub limits: Limits,
}

/// The most one request may cost.
///
/// The node budget is what bounds a request's work: it counts every node
/// of every search the request makes (each turn of a review included), in
/// order, so it cuts at the same node on every run and the answer never
/// depends on the machine's load. The clock is a safety net behind it.
/// Where a budget cuts, the answer says so: `choose` and `evaluate` answer
/// from the deepest search they finished, with a `"cut"` field naming the
/// limit; `review` and `hint`, whose every value must be the full search's,
/// refuse with `too_expensive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest search (a spec's `depth`) a request may ask for.
    pub max_depth: u8,
    /// Nodes one request may search, over all its searches.
    pub max_nodes: Option<u64>,
    /// Time from a request's arrival (waiting for a worker included) after
    /// which its searches stop.
    pub time_budget: Option<Duration>,
}

impl Limits {
    /// No bound: what a program that trusts its requests uses.
    pub const NONE: Limits = Limits {
        max_depth: u8::MAX,
        max_nodes: None,
        time_budget: None,
    };

    /// The bound of an untrusted bot unless configured: depth at most 3
    /// (the shipped levels use at most 2 full plies); 5 million nodes a
    /// request, about 4 s of one core (a whole review of a 190-turn masters
    /// game by the default reference takes 0.9 million, a hard `choose`
    /// about 2,000); and ten seconds from arrival as the clock's safety
    /// net.
    pub const UNTRUSTED: Limits = Limits {
        max_depth: 3,
        max_nodes: Some(5_000_000),
        time_budget: Some(Duration::from_secs(10)),
    };

    /// A stop for one request arriving now, or `None` without a bound.
    pub fn stop(&self) -> Option<Stop> {
        self.stop_from(Instant::now(), None)
    }

    /// A stop for one request that arrived at `arrived`; it also fires when
    /// `gone` is set (the client went away). `None` without any bound.
    pub fn stop_from(&self, arrived: Instant, gone: Option<Arc<AtomicBool>>) -> Option<Stop> {
        if self.max_nodes.is_none() && self.time_budget.is_none() && gone.is_none() {
            return None;
        }
        let max_nodes = self.max_nodes;
        let budget = self.time_budget;
        // A budget too large to add to the clock is no deadline at all
        // (`--time-budget-ms` comes from the command line).
        let deadline = budget.and_then(|budget| arrived.checked_add(budget));
        Some(Stop::new(move |nodes| {
            if let Some(max) = max_nodes.filter(|&max| nodes >= max) {
                return Some(format!("the node budget of {max} nodes a request"));
            }
            if let (Some(deadline), Some(budget)) = (deadline, budget)
                && Instant::now() >= deadline
            {
                return Some(format!(
                    "the time budget of {} ms a request",
                    budget.as_millis()
                ));
            }
            if gone
                .as_ref()
                .is_some_and(|gone| gone.load(Ordering::Relaxed))
            {
                return Some("the client going away".to_string());
            }
            None
        }))
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::NONE
    }
}

/// Why a bot could not start.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A table could not be opened or does not belong to its rule set.
    #[error("table {path}: {message}")]
    Table {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// A model in the models folder could not be read.
    #[error("{0}")]
    Model(#[from] sawah_agents::neural::ModelError),
    /// The models folder's rule files clash with the rule sets known.
    #[error("{0}")]
    Manifest(#[from] sawah_agents::manifest::ManifestError),
    /// The models folder could not be listed.
    #[error("models folder {path}: {source}")]
    Folder {
        /// The folder.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A bot for `registry` set up from `setup`, every file opened and checked.
pub fn bot(registry: Registry, setup: &Setup) -> Result<Bot, SetupError> {
    let mut bot = Bot::new(registry)
        .with_models(setup.models.clone())?
        .with_max_depth(setup.limits.max_depth);
    if let Some(dir) = setup.models.as_ref().and_then(Models::dir) {
        add_folder_models(&mut bot, dir)?;
    }
    for table in &setup.tables {
        match open_table(bot.registry(), table, setup.untrusted)? {
            (name, OpenedTable::Race(opened)) => {
                bot.assets_mut().add_table(&name, opened);
                bot.add_default_table(name);
            }
            // Senet is not solved whole: its endgame table serves specs'
            // `endgame=NAME`, not perfect play.
            (name, OpenedTable::SenetEndgames(opened)) => {
                bot.assets_mut().add_endgame_table(&name, opened);
            }
        }
    }
    if !setup.untrusted {
        bot = bot.with_fallback(FileAssets);
    }
    Ok(bot)
}

/// Every `.safetensors` file of the models folder the manifest does not
/// name, held under its file name.
fn add_folder_models(bot: &mut Bot, dir: &Path) -> Result<(), SetupError> {
    let folder_error = |source| SetupError::Folder {
        path: dir.display().to_string(),
        source,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(folder_error)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "safetensors"))
        .collect();
    paths.sort();
    for path in paths {
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        if bot.assets_mut().model_names().any(|held| held == name) {
            continue;
        }
        let net = NeuralNet::load_file(&path)?;
        bot.assets_mut().add_model(name, Arc::new(net));
    }
    Ok(())
}

/// A table opened at start.
enum OpenedTable {
    /// A race rule set's solution.
    Race(Arc<Table>),
    /// Senet's endgame table.
    SenetEndgames(Arc<EndgameTable>),
}

/// Opens a table for its rule set (the race rule sets' solutions, Senet's
/// endgame tables); its name is the path as given (trusted) or its file
/// name (untrusted: requests name nothing else).
fn open_table(
    registry: &Registry,
    table: &TableArg,
    untrusted: bool,
) -> Result<(String, OpenedTable), SetupError> {
    let shown = table.path.display().to_string();
    let fail = |message: String| SetupError::Table {
        path: shown.clone(),
        message,
    };
    let rules = match &table.rules {
        Some(rules) => rules.clone(),
        None => header_rules(&table.path).map_err(fail)?,
    };
    let game = registry.get(&rules).map_err(|e| fail(e.to_string()))?;
    let opened = match game {
        AnyGame::Race(rule_set) => {
            Table::open(&table.path, &rule_set).map(|t| OpenedTable::Race(Arc::new(t)))
        }
        AnyGame::Senet(_) => {
            EndgameTable::open(&table.path).map(|t| OpenedTable::SenetEndgames(Arc::new(t)))
        }
    }
    .map_err(|e| fail(e.to_string()))?;
    let name = if untrusted {
        table
            .path
            .file_name()
            .and_then(|name| name.to_str())
            .ok_or_else(|| fail("the file name is not UTF-8 text".into()))?
            .to_string()
    } else {
        shown.clone()
    };
    Ok((name, opened))
}

/// The rule set a table file's header names (reading at most its header).
pub fn header_rules(path: &Path) -> Result<String, String> {
    let file = sawah_agents::files::open_regular(path).map_err(|e| e.to_string())?;
    let mut head = Vec::new();
    file.take(16 + MAX_TABLE_HEADER)
        .read_to_end(&mut head)
        .map_err(|e| e.to_string())?;
    if head.len() >= 16 {
        let header_len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as usize;
        head.truncate(16 + header_len.min(head.len() - 16));
    }
    Table::rules_in_header(&head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_argument_names_its_rule_set_before_an_equals_sign() {
        let parsed: TableArg = "ur=tables/ur.sawah".parse().unwrap();
        assert_eq!(parsed.rules.as_deref(), Some("ur"));
        assert_eq!(parsed.path, PathBuf::from("tables/ur.sawah"));
        let bare: TableArg = "tables/a=b.sawah".parse().unwrap();
        assert_eq!(bare.rules, None);
        assert_eq!(bare.path, PathBuf::from("tables/a=b.sawah"));
        assert!("".parse::<TableArg>().is_err());
    }

    #[test]
    fn limits_stop_on_nodes_time_and_a_client_gone() {
        assert!(Limits::NONE.stop().is_none());
        let nodes = Limits {
            max_nodes: Some(100),
            ..Limits::NONE
        }
        .stop()
        .unwrap();
        assert!(!nodes.spend(99));
        assert!(nodes.spend(1));
        assert_eq!(
            nodes.reason(),
            Some("the node budget of 100 nodes a request")
        );
        let time = Limits {
            time_budget: Some(Duration::ZERO),
            ..Limits::NONE
        }
        .stop()
        .unwrap();
        assert!(time.spend(0));
        assert_eq!(time.reason(), Some("the time budget of 0 ms a request"));
        // The time counts from arrival, not from when the work starts.
        let waited = Limits {
            time_budget: Some(Duration::from_millis(50)),
            ..Limits::NONE
        }
        .stop_from(Instant::now() - Duration::from_millis(60), None)
        .unwrap();
        assert!(waited.spend(0));
        let endless = Limits {
            time_budget: Some(Duration::from_millis(u64::MAX)),
            ..Limits::NONE
        }
        .stop()
        .unwrap();
        assert!(!endless.spend(0));
        let gone = Arc::new(AtomicBool::new(false));
        let watched = Limits::NONE
            .stop_from(Instant::now(), Some(Arc::clone(&gone)))
            .unwrap();
        assert!(!watched.spend(1));
        gone.store(true, Ordering::Relaxed);
        assert!(watched.spend(1));
        assert_eq!(watched.reason(), Some("the client going away"));
    }
}
