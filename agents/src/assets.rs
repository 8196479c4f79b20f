//! Where the files an agent spec names come from: `neural:model=NAME`,
//! `perfect:table=NAME` and `heuristic:weights=NAME`.
//!
//! A spec names files; an [`Assets`] turns a name into what the agent needs.
//! Natively, [`FileAssets`] reads names as paths (what the command line
//! does). A browser has no file system: there, [`MemoryAssets`] holds the
//! bytes a page handed over, and names are keys into it. A memory store can
//! fall back to another store for the names it does not hold, which is how
//! a server serves its shipped models from memory and any other model from
//! disk with one mechanism.

use crate::endgame::EndgameTable;
use crate::neural::NeuralNet;
use crate::spec_error::SpecError;
use crate::table::Table;
use sawah_engine::race::RuleSet;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A source of the files agent specs name.
pub trait Assets: Send + Sync {
    /// The neural network called `name` (not yet checked against a game:
    /// building the agent does that).
    fn model(&self, name: &str) -> Result<Arc<NeuralNet>, SpecError>;

    /// The solved table called `name`, checked against `rules`.
    fn table(&self, name: &str, rules: &RuleSet) -> Result<Arc<Table>, SpecError>;

    /// The text of the heuristic weights file called `name` (JSON, see
    /// [`crate::heuristic::WeightsFile`]).
    fn weights(&self, name: &str) -> Result<String, SpecError>;

    /// The Senet endgame table called `name`.
    fn endgame_table(&self, name: &str) -> Result<Arc<EndgameTable>, SpecError>;
}

/// The largest heuristic weights file read (they are a few kilobytes).
pub const MAX_WEIGHTS_BYTES: u64 = 1 << 20;

/// Files read from the file system, names being paths: regular files only,
/// sizes checked before reading. Not on WebAssembly.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Debug, Default)]
pub struct FileAssets;

#[cfg(not(target_arch = "wasm32"))]
impl Assets for FileAssets {
    fn model(&self, name: &str) -> Result<Arc<NeuralNet>, SpecError> {
        NeuralNet::load_file(std::path::Path::new(name))
            .map(Arc::new)
            .map_err(|e| SpecError::Model(Arc::new(e)))
    }

    fn table(&self, name: &str, rules: &RuleSet) -> Result<Arc<Table>, SpecError> {
        Table::open(std::path::Path::new(name), rules)
            .map(Arc::new)
            .map_err(|e| SpecError::Table(Arc::new(e)))
    }

    fn weights(&self, name: &str) -> Result<String, SpecError> {
        let unreadable = |e| SpecError::Weights {
            file: name.to_string(),
            problem: crate::spec_error::WeightsProblem::Unreadable(Arc::new(e)),
        };
        let bytes =
            crate::neural::model::read_bounded(std::path::Path::new(name), MAX_WEIGHTS_BYTES)
                .map_err(unreadable)?;
        String::from_utf8(bytes)
            .map_err(|e| unreadable(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }

    fn endgame_table(&self, name: &str) -> Result<Arc<EndgameTable>, SpecError> {
        EndgameTable::open(std::path::Path::new(name))
            .map(Arc::new)
            .map_err(|e| SpecError::Table(Arc::new(e)))
    }
}

/// The store used when none is given: the file system natively (and, with
/// the `shipped` feature, the embedded models for names that are not
/// files), nothing on WebAssembly (where every file must be handed over as
/// bytes).
pub fn default_assets() -> &'static dyn Assets {
    #[cfg(all(not(target_arch = "wasm32"), feature = "shipped"))]
    {
        &FilesThenShipped
    }
    #[cfg(all(not(target_arch = "wasm32"), not(feature = "shipped")))]
    {
        &FileAssets
    }
    #[cfg(target_arch = "wasm32")]
    {
        &NO_ASSETS
    }
}

/// The file system, and for a model name that is not a file there, the
/// shipped model of that name embedded in the crate: a local file always
/// wins, so `model=ur.safetensors` means the file when there is one.
#[cfg(all(not(target_arch = "wasm32"), feature = "shipped"))]
#[derive(Clone, Copy, Debug, Default)]
pub struct FilesThenShipped;

#[cfg(all(not(target_arch = "wasm32"), feature = "shipped"))]
impl Assets for FilesThenShipped {
    fn model(&self, name: &str) -> Result<Arc<NeuralNet>, SpecError> {
        match crate::shipped::file(name) {
            Some(bytes) if !std::path::Path::new(name).exists() => NeuralNet::from_bytes(bytes)
                .map(Arc::new)
                .map_err(|e| SpecError::Model(Arc::new(e))),
            _ => FileAssets.model(name),
        }
    }

    fn table(&self, name: &str, rules: &RuleSet) -> Result<Arc<Table>, SpecError> {
        FileAssets.table(name, rules)
    }

    fn weights(&self, name: &str) -> Result<String, SpecError> {
        FileAssets.weights(name)
    }

    fn endgame_table(&self, name: &str) -> Result<Arc<EndgameTable>, SpecError> {
        FileAssets.endgame_table(name)
    }
}

#[cfg(target_arch = "wasm32")]
static NO_ASSETS: MemoryAssets = MemoryAssets::new();

/// Files held in memory under names (bytes a page handed over, or the
/// shipped models), with an optional store behind it for other names.
#[derive(Default)]
pub struct MemoryAssets {
    models: BTreeMap<String, Arc<NeuralNet>>,
    tables: BTreeMap<String, HeldTable>,
    weights: BTreeMap<String, String>,
    fallback: Option<Box<dyn Assets>>,
}

/// A table held in memory: the bytes of a table file (checked when used),
/// or a table already opened (a server's, memory-mapped at start): a race
/// rule set's solution or a Senet endgame table.
enum HeldTable {
    Bytes(Arc<[u8]>),
    Open(Arc<Table>),
    Endgame(Arc<EndgameTable>),
}

impl std::fmt::Debug for MemoryAssets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryAssets")
            .field("models", &self.models.keys().collect::<Vec<_>>())
            .field("tables", &self.tables.keys().collect::<Vec<_>>())
            .field("weights", &self.weights.keys().collect::<Vec<_>>())
            .field("fallback", &self.fallback.is_some())
            .finish()
    }
}

impl MemoryAssets {
    /// An empty store with nothing behind it.
    pub const fn new() -> MemoryAssets {
        MemoryAssets {
            models: BTreeMap::new(),
            tables: BTreeMap::new(),
            weights: BTreeMap::new(),
            fallback: None,
        }
    }

    /// Looks names this store does not hold up in `fallback`.
    pub fn with_fallback(mut self, fallback: impl Assets + 'static) -> MemoryAssets {
        self.fallback = Some(Box::new(fallback));
        self
    }

    /// Holds a model under `name`, read from SafeTensors bytes (checked now;
    /// an error names the model).
    pub fn add_model_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<(), SpecError> {
        let net = NeuralNet::from_bytes(bytes).map_err(|e| SpecError::NamedModel {
            name: name.to_string(),
            source: Arc::new(e),
        })?;
        self.add_model(name, Arc::new(net));
        Ok(())
    }

    /// Holds an already loaded model under `name`.
    pub fn add_model(&mut self, name: &str, net: Arc<NeuralNet>) {
        self.models.insert(name.to_string(), net);
    }

    /// Holds the bytes of a solved table under `name` (checked against a
    /// rule set when an agent uses it).
    pub fn add_table_bytes(&mut self, name: &str, bytes: impl Into<Arc<[u8]>>) {
        self.tables
            .insert(name.to_string(), HeldTable::Bytes(bytes.into()));
    }

    /// Holds an opened table under `name` (it serves only the rule set it
    /// was opened for).
    pub fn add_table(&mut self, name: &str, table: Arc<Table>) {
        self.tables.insert(name.to_string(), HeldTable::Open(table));
    }

    /// Holds an opened Senet endgame table under `name` (for specs'
    /// `endgame=NAME`).
    pub fn add_endgame_table(&mut self, name: &str, table: Arc<EndgameTable>) {
        self.tables
            .insert(name.to_string(), HeldTable::Endgame(table));
    }

    /// The rule set of the table held under `name`, if one is held there
    /// and its header names one.
    pub fn table_rules(&self, name: &str) -> Option<String> {
        match self.tables.get(name)? {
            HeldTable::Bytes(bytes) => Table::rules_in_header(bytes).ok(),
            HeldTable::Open(table) => Some(table.rules().to_string()),
            HeldTable::Endgame(_) => Some(sawah_engine::senet::NAME.to_string()),
        }
    }

    /// The error for a table held under `name` that is another rule set's
    /// than `expected`.
    fn wrong_rules(&self, name: &str, expected: &str) -> SpecError {
        SpecError::Table(Arc::new(crate::table::TableError::WrongRules {
            path: name.to_string(),
            expected: expected.to_string(),
            found: self.table_rules(name).unwrap_or_default(),
        }))
    }

    /// Holds the text of a heuristic weights file under `name`.
    pub fn add_weights(&mut self, name: &str, json: impl Into<String>) {
        self.weights.insert(name.to_string(), json.into());
    }

    /// The names of the models held here.
    pub fn model_names(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }

    fn missing(what: &'static str, name: &str, held: Vec<&String>) -> SpecError {
        let held: Vec<&str> = held.into_iter().map(String::as_str).collect();
        SpecError::NotHandedOver {
            what,
            name: name.to_string(),
            held: if held.is_empty() {
                "none".to_string()
            } else {
                held.join(", ")
            },
        }
    }
}

impl Assets for MemoryAssets {
    fn model(&self, name: &str) -> Result<Arc<NeuralNet>, SpecError> {
        match (self.models.get(name), &self.fallback) {
            (Some(net), _) => Ok(Arc::clone(net)),
            (None, Some(fallback)) => fallback.model(name),
            (None, None) => Err(Self::missing("model", name, self.models.keys().collect())),
        }
    }

    fn table(&self, name: &str, rules: &RuleSet) -> Result<Arc<Table>, SpecError> {
        match (self.tables.get(name), &self.fallback) {
            (Some(HeldTable::Bytes(bytes)), _) => Table::from_bytes(Arc::clone(bytes), name, rules)
                .map(Arc::new)
                .map_err(|e| SpecError::Table(Arc::new(e))),
            (Some(HeldTable::Open(table)), _) if table.belongs_to(rules) => Ok(Arc::clone(table)),
            (Some(_), _) => Err(self.wrong_rules(name, rules.name())),
            (None, Some(fallback)) => fallback.table(name, rules),
            (None, None) => Err(Self::missing("table", name, self.tables.keys().collect())),
        }
    }

    fn weights(&self, name: &str) -> Result<String, SpecError> {
        match (self.weights.get(name), &self.fallback) {
            (Some(text), _) => Ok(text.clone()),
            (None, Some(fallback)) => fallback.weights(name),
            (None, None) => Err(Self::missing(
                "weights file",
                name,
                self.weights.keys().collect(),
            )),
        }
    }

    /// An endgame table handed over as bytes with [`MemoryAssets::add_table_bytes`].
    fn endgame_table(&self, name: &str) -> Result<Arc<EndgameTable>, SpecError> {
        match (self.tables.get(name), &self.fallback) {
            (Some(HeldTable::Bytes(bytes)), _) => EndgameTable::from_bytes(Arc::clone(bytes), name)
                .map(Arc::new)
                .map_err(|e| SpecError::Table(Arc::new(e))),
            (Some(HeldTable::Endgame(table)), _) => Ok(Arc::clone(table)),
            (Some(HeldTable::Open(_)), _) => Err(self.wrong_rules(name, sawah_engine::senet::NAME)),
            (None, Some(fallback)) => fallback.endgame_table(name),
            (None, None) => Err(Self::missing("table", name, self.tables.keys().collect())),
        }
    }
}
