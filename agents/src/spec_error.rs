//! Why a spec, or a file it names, was refused: [`SpecError`], with the
//! names an unknown agent's message lists and what is wrong with a
//! weights file. A leaf below `spec`, `assets` and `heuristic`, which all
//! return it, so none of them imports another for its error.

use thiserror::Error;

/// The agents a spec can name.
pub const AGENTS: [&str; 5] = ["random", "heuristic", "expectiminimax", "neural", "perfect"];
/// The strength presets.
pub const PRESETS: [&str; 3] = ["easy", "medium", "hard"];

/// Why a spec was refused.
#[derive(Clone, Debug, Error)]
pub enum SpecError {
    /// Not an agent or preset name.
    #[error("unknown agent {0:?}; agents: {agents}; presets: {presets}", agents = AGENTS.join(", "), presets = PRESETS.join(", "))]
    UnknownAgent(String),
    /// An option the agent does not have.
    #[error("{agent} has no option {option:?}; options: {valid}")]
    UnknownOption {
        /// The agent.
        agent: String,
        /// The option given.
        option: String,
        /// The options it has.
        valid: String,
    },
    /// An option value out of range or of the wrong type.
    #[error("option {option}={value}: {expected}")]
    BadValue {
        /// The option.
        option: String,
        /// The value given.
        value: String,
        /// What is expected.
        expected: String,
    },
    /// A string option without `=`.
    #[error("option {0:?} should be key=value (e.g. expectiminimax:depth=2:noise=0.02)")]
    Malformed(String),
    /// `elo=N` where the manifest has no dial for the rule set (or there
    /// are no shipped models).
    #[error(
        "elo=N plays the strength dial of the shipped models' manifest, which has none for {0}; use a level (easy, medium, hard) or a spec"
    )]
    NoDial(String),
    /// A strength as an object whose `"elo"` is not a number.
    #[error("\"elo\" is {0}; it must be a number")]
    EloNotANumber(String),
    /// A strength as an object naming an agent other than the dial's.
    #[error("\"elo\" dials the rule set's neural model; \"agent\" is {0}")]
    EloNotNeural(String),
    /// A perfect agent without a table, or for a family without solutions.
    #[error(
        "perfect play needs a solved table of {0}: make one with `sawah solve --rules {0} --out FILE`, then use perfect:table=FILE, or give the table with --table FILE"
    )]
    NeedsTable(String),
    /// No exact solutions for this family.
    #[error(
        "perfect play needs an exact solution, and {0} has none (only the race family is solved)"
    )]
    NoPerfectPlay(String),
    /// The table could not be used.
    #[error(transparent)]
    Table(std::sync::Arc<crate::table::TableError>),
    /// An endgame table for a family that has none.
    #[error(
        "endgame tables are Senet's; {0} is solved whole: use perfect:table=FILE (from `sawah solve --rules {0} --out FILE`)"
    )]
    NoEndgames(String),
    /// A neural agent without a model.
    #[error(
        "a neural agent needs a model of {0}: neural:model=FILE (see models/manifest.json or `sawah export`)"
    )]
    NeedsModel(String),
    /// The model could not be used.
    #[error(transparent)]
    Model(std::sync::Arc<crate::neural::ModelError>),
    /// A model handed over under a name is not a model.
    #[error("model {name}: {source}")]
    NamedModel {
        /// The name it was handed over under.
        name: String,
        /// What is wrong with it.
        source: std::sync::Arc<crate::neural::ModelError>,
    },
    /// A heuristic weights file could not be used.
    #[error("{file}: {problem}")]
    Weights {
        /// The file.
        file: String,
        /// What is wrong with it.
        problem: WeightsProblem,
    },
    /// A store without the file a spec names (the browser has only what
    /// a page handed over).
    #[error("no {what} named {name:?} is held here (held: {held})")]
    NotHandedOver {
        /// `model`, `table` or `weights file`.
        what: &'static str,
        /// The name asked for.
        name: String,
        /// The names held, or `none`.
        held: String,
    },
    /// JSON that is not a spec.
    #[error(
        "a bot must be a name such as \"hard\" or \"expectiminimax:depth=2\", or an object such as {{\"agent\":\"expectiminimax\",\"depth\":2}}; got {0}"
    )]
    NotASpec(String),
}

/// What is wrong with a heuristic weights file.
#[derive(Clone, Debug, thiserror::Error)]
pub enum WeightsProblem {
    /// The file could not be read.
    #[error("{0}")]
    Unreadable(std::sync::Arc<std::io::Error>),
    /// Not JSON of a weights file's shape.
    #[error("{0}")]
    NotJson(std::sync::Arc<serde_json::Error>),
    /// Another `format`.
    #[error("not a heuristic weights file")]
    NotWeights,
    /// Weights learned on another rule set.
    #[error("weights for {found}, not {expected}")]
    OtherRules {
        /// The file's rule set.
        found: String,
        /// The rule set played.
        expected: String,
    },
    /// Other features than this evaluation's.
    #[error("features {found:?}; this evaluation has {expected:?}")]
    OtherFeatures {
        /// The file's.
        found: Vec<String>,
        /// The evaluation's.
        expected: &'static [&'static str],
    },
    /// A weight that is not a finite number.
    #[error("a weight is not finite")]
    NotFinite,
}
