//! `sawah.Agent`, `sawah.Table` and `sawah.solve`: opponents, solved
//! tables and the solver, for Python.

use crate::errors::value_error;
use crate::family::Family;
use crate::game::{PyGame, PyMove, PyPosition};
use numpy::PyArray1;
use pyo3::prelude::*;
use sawah_agents::Agent;
use sawah_agents::table::{Table, TableInfo, ValueType};
use sawah_engine::registry::AnyGame;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// An agent of either family.
enum AnyAgent {
    Race(Box<dyn Agent<sawah_engine::race::RuleSet> + Send>),
    Senet(Box<dyn Agent<sawah_engine::senet::Senet> + Send>),
}

/// An opponent: a level (`easy`, `medium`, `hard`, from the shipped
/// models) or any agent spec (`expectiminimax:depth=3`,
/// `perfect:table=ur.table`, …), for one rule set.
#[pyclass(name = "Agent", module = "sawah", frozen)]
pub struct PyAgent {
    game: PyGame,
    spec: String,
    agent: Mutex<AnyAgent>,
}

#[pymethods]
impl PyAgent {
    /// The agent `spec` (as typed: a level or a spec) for `rules`; `seed`
    /// replaces the spec's seed.
    #[new]
    #[pyo3(signature = (spec, rules, seed=None))]
    fn new(spec: &str, rules: &str, seed: Option<u64>) -> PyResult<PyAgent> {
        let game = PyGame::resolve(rules)?;
        let mut parsed = crate::shipped::spec(spec, game.game.name()).map_err(value_error)?;
        if let Some(seed) = seed {
            parsed.seed = seed;
        }
        let assets = crate::shipped::assets();
        let agent = match &game.game {
            AnyGame::Race(g) => {
                AnyAgent::Race(parsed.build_with(&**g, &*assets).map_err(value_error)?)
            }
            AnyGame::Senet(g) => {
                AnyAgent::Senet(parsed.build_with(&**g, &*assets).map_err(value_error)?)
            }
        };
        Ok(PyAgent {
            game,
            spec: parsed.to_string(),
            agent: Mutex::new(agent),
        })
    }

    /// The resolved spec.
    #[getter]
    fn spec(&self) -> String {
        self.spec.clone()
    }

    /// The move the agent plays with `roll`, or None when the turn passes.
    fn choose(&self, position: &PyPosition, roll: u8) -> PyResult<Option<PyMove>> {
        let moves = self.game.legal_moves(position, roll)?;
        if moves.is_empty() {
            return Ok(None);
        }
        let mut agent = self
            .agent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = match (&mut *agent, &self.game.game) {
            (AnyAgent::Race(agent), AnyGame::Race(g)) => {
                choose_index(&**g, agent.as_mut(), &self.game, position, roll)?
            }
            (AnyAgent::Senet(agent), AnyGame::Senet(g)) => {
                choose_index(&**g, agent.as_mut(), &self.game, position, roll)?
            }
            _ => unreachable!("an agent is built for its own game"),
        };
        Ok(moves.into_iter().nth(index))
    }

    /// The action the agent plays with `roll`, or None when the turn passes.
    fn choose_action(&self, position: &PyPosition, roll: u8) -> PyResult<Option<usize>> {
        Ok(self.choose(position, roll)?.map(|mv| mv.action))
    }

    /// The agent's win probability for the side to move, if it has a view.
    fn evaluate(&self, position: &PyPosition) -> PyResult<Option<f64>> {
        let mut agent = self
            .agent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(match (&mut *agent, &self.game.game) {
            (AnyAgent::Race(agent), AnyGame::Race(g)) => {
                agent.evaluate(&**g, &self.game.position_of(&**g, position)?)
            }
            (AnyAgent::Senet(agent), AnyGame::Senet(g)) => {
                agent.evaluate(&**g, &self.game.position_of(&**g, position)?)
            }
            _ => unreachable!("an agent is built for its own game"),
        })
    }

    fn __repr__(&self) -> String {
        format!("Agent({:?}, {:?})", self.spec, self.game.game.name())
    }
}

/// The index, among the legal moves, of the move `agent` plays.
fn choose_index<G: Family>(
    game: &G,
    agent: &mut (dyn Agent<G> + Send),
    py_game: &PyGame,
    position: &PyPosition,
    roll: u8,
) -> PyResult<usize> {
    let p = py_game.position_of(game, position)?;
    let legal = game.legal_moves(&p, roll);
    let chosen = agent.choose(game, &p, roll, &legal);
    legal
        .iter()
        .position(|&mv| mv == chosen)
        .ok_or_else(|| value_error(format!("{} chose a move that is not legal", agent.name())))
}

/// A solved table of a race rule set: every position's exact win
/// probability for the side to move.
#[pyclass(name = "Table", module = "sawah", frozen)]
pub struct PyTable {
    game: PyGame,
    rules: Arc<sawah_engine::race::RuleSet>,
    table: Arc<Table>,
}

#[pymethods]
impl PyTable {
    /// Opens the table at `path` (written by `sawah solve --out` or
    /// `sawah.solve`); `rules` defaults to the rule set its header names.
    #[new]
    #[pyo3(signature = (path, rules=None))]
    fn new(path: PathBuf, rules: Option<&str>) -> PyResult<PyTable> {
        let rules = match rules {
            Some(rules) => rules.to_string(),
            None => sawah_protocol::native::header_rules(&path)
                .map_err(|e| value_error(format!("{}: {e}", path.display())))?,
        };
        let game = PyGame::resolve(&rules)?;
        let AnyGame::Race(race) = &game.game else {
            return Err(value_error(format!(
                "{rules} has no solved tables (only race rule sets do)"
            )));
        };
        let table = Table::open(&path, race).map_err(value_error)?;
        Ok(PyTable {
            rules: race.clone(),
            game,
            table: Arc::new(table),
        })
    }

    /// The rule set.
    #[getter]
    fn rules(&self) -> String {
        self.rules.name().to_string()
    }

    /// The win probability of the side to move (exact for finished games).
    fn value(&self, position: &PyPosition) -> PyResult<f64> {
        let p = self.game.position_of(&*self.rules, position)?;
        Ok(sawah_agents::perfect::position_value(
            &self.rules,
            &self.table,
            &p,
        ))
    }

    /// The values of many positions (float64 array).
    fn values<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<PyRef<'py, PyPosition>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let values = positions
            .iter()
            .map(|p| self.value(p))
            .collect::<PyResult<Vec<f64>>>()?;
        Ok(PyArray1::from_vec(py, values))
    }

    /// The mover's win probability after each legal move with `roll`, in
    /// the order of `Game.legal_moves`.
    fn move_values(&self, position: &PyPosition, roll: u8) -> PyResult<Vec<f64>> {
        let p = self.game.position_of(&*self.rules, position)?;
        let moves = self.rules.legal_moves(&p, roll);
        Ok(moves
            .iter()
            .map(|&mv| sawah_agents::perfect::move_value(&self.rules, &self.table, &p, mv))
            .collect())
    }

    /// The win probability `move` (a Move, or an action) gives away with
    /// `roll` against the best move: 0 for a best move.
    #[pyo3(name = "loss")]
    fn loss(&self, position: &PyPosition, roll: u8, r#move: &Bound<'_, PyAny>) -> PyResult<f64> {
        let p = self.game.position_of(&*self.rules, position)?;
        let action = match r#move.cast::<PyMove>() {
            Ok(mv) => mv.get().action,
            Err(_) => r#move.extract::<usize>()?,
        };
        let mv = crate::family::move_of(&*self.rules, &p, roll, action)
            .ok_or_else(|| value_error(format!("action {action} is not legal with roll {roll}")))?;
        Ok(sawah_agents::perfect::loss(
            &self.rules,
            &self.table,
            &p,
            roll,
            mv,
        ))
    }

    fn __repr__(&self) -> String {
        format!("Table({:?})", self.rules.name())
    }
}

/// Solves a race rule set exactly and writes its table to `path`
/// (atomically, with a header), as `sawah solve --out` does; returns the
/// first player's win probability at the start. Meant for the small rule
/// sets (`ur-2`, `ur-3` take well under a second); the 7-piece ones take
/// minutes and several GiB (use `sawah solve` there).
#[pyfunction]
#[pyo3(signature = (rules, path, tolerance=1e-10))]
pub fn solve(py: Python<'_>, rules: &str, path: PathBuf, tolerance: f64) -> PyResult<f64> {
    let game = PyGame::resolve(rules)?;
    let AnyGame::Race(race) = &game.game else {
        return Err(value_error(format!(
            "{rules} cannot be solved (only race rule sets can)"
        )));
    };
    if !(tolerance > 0.0 && tolerance < 1.0) {
        return Err(value_error("tolerance must be between 0 and 1"));
    }
    let options = sawah_solver::SolveOptions {
        tolerance,
        ..Default::default()
    };
    let race = race.clone();
    py.detach(move || {
        let solution = sawah_solver::solve(&race, options, |_| {}).map_err(value_error)?;
        let info = TableInfo {
            states: solution.values.len() as u64,
            residual: solution.residual,
            tolerance,
            value_type: ValueType::F32,
        };
        sawah_agents::table::write_table(&path, &race, &solution.values, &info)
            .map_err(value_error)?;
        Ok(solution.value(&race.start()))
    })
}
