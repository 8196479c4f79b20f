//! sawah-ai for Python: the rules of Sawah's race games and Senet, the
//! shipped opponents, solved tables, the bot protocol, and the core of the
//! Gymnasium and PettingZoo environments (`sawah/`, in Python, wraps it).
//!
//! Everything is the same Rust the CLI, the server and the browser package
//! run: a request answered through `sawah.request` is answered exactly as
//! `sawah bot` answers it.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

mod agents;
mod env;
mod envs;
mod errors;
mod family;
mod game;
mod shipped;

use pyo3::prelude::*;
use pyo3::types::PyAny;

/// A protocol bot: the shipped levels, and files named by path read from
/// the file system (as `sawah bot` started with the shipped models).
#[pyclass(name = "Bot", module = "sawah", frozen)]
struct PyBot {
    bot: sawah_protocol::Bot,
}

#[pymethods]
impl PyBot {
    /// A bot with the shipped levels; `tables` are solved tables that play
    /// when a request names no bot (each serves the rule set its header
    /// names).
    #[new]
    #[pyo3(signature = (tables=Vec::new()))]
    fn new(tables: Vec<String>) -> PyResult<PyBot> {
        let mut bot = shipped::bot().map_err(errors::value_error)?;
        for table in tables {
            bot.add_default_table(table);
        }
        Ok(PyBot { bot })
    }

    /// Answers one request (a dict, or JSON text) with the protocol's
    /// response, as a dict: errors are answers too (`{"error": …}`), as
    /// through every front door.
    fn request(&self, py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let line = match request.cast::<pyo3::types::PyString>() {
            Ok(text) => text.to_str()?.to_string(),
            Err(_) => py
                .import("json")?
                .call_method1("dumps", (request,))?
                .extract()?,
        };
        let answer = py.detach(|| self.bot.handle_line(&line));
        errors::from_json_text(py, &answer)
    }

    /// Answers one request line (JSON text) with one response line.
    fn handle_line(&self, py: Python<'_>, line: &str) -> String {
        py.detach(|| self.bot.handle_line(line))
    }
}

/// Every rule set's id (the built-in ones, and those of the models folder
/// in use).
#[pyfunction]
fn rule_sets() -> Vec<String> {
    shipped::registry().names()
}

/// Plays the levels from the models folder `path` from now on (as
/// `--models DIR` does for the command line): its levels, dial and
/// puzzles, and its rule files' rule sets by name; `None` goes back to the
/// shipped models. Returns the rule sets its rule files add. Refused, with
/// the reason, when the folder does not load.
#[pyfunction]
#[pyo3(signature = (path=None))]
fn use_models(path: Option<std::path::PathBuf>) -> PyResult<Vec<String>> {
    match path {
        Some(path) => shipped::use_models(&path).map_err(errors::value_error),
        None => {
            shipped::use_shipped();
            Ok(Vec::new())
        }
    }
}

/// The levels the models in use give each rule set: (rules, level, spec).
#[pyfunction]
fn levels() -> Vec<(String, String, String)> {
    shipped::models()
        .manifest()
        .levels
        .iter()
        .map(|level| (level.rules.clone(), level.level.clone(), level.spec.clone()))
        .collect()
}

/// The dice seed of pair `index` of a match seeded with `seed`: the seeds
/// `sawah match` and `sawah tournament` use, so that a Python agent scored
/// with them meets the same dice as the CLI's agents.
#[pyfunction]
fn pair_seed(seed: u64, index: u64) -> u64 {
    sawah_eval::arena::matches::pair_seed(seed, index)
}

/// The mean of `samples` (scores from 0 to 1) with its 95% interval, as
/// the CLI's match reports compute it: (mean, low, high).
#[pyfunction]
fn score_interval(samples: Vec<f64>) -> (f64, f64, f64) {
    let interval = sawah_eval::stats::mean_interval(&samples);
    (interval.mean, interval.low, interval.high)
}

/// The package's version (the workspace's).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::PyGame>()?;
    m.add_class::<game::PyPosition>()?;
    m.add_class::<game::PyMove>()?;
    m.add_class::<agents::PyAgent>()?;
    m.add_class::<agents::PyTable>()?;
    m.add_class::<PyBot>()?;
    m.add_class::<envs::CoreEnv>()?;
    m.add_class::<envs::CoreVecEnv>()?;
    m.add_function(wrap_pyfunction!(agents::solve, m)?)?;
    m.add_function(wrap_pyfunction!(rule_sets, m)?)?;
    m.add_function(wrap_pyfunction!(levels, m)?)?;
    m.add_function(wrap_pyfunction!(use_models, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(pair_seed, m)?)?;
    m.add_function(wrap_pyfunction!(score_interval, m)?)?;
    Ok(())
}
