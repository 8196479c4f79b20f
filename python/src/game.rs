//! `sawah.Game`, `sawah.Position` and `sawah.Move`: the rules of one rule
//! set, for Python.

use crate::errors::value_error;
use crate::family::{AnyPosition, Family, move_of, observation_size, observe};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyAny;
use sawah_engine::registry::AnyGame;
use sawah_engine::{Codec, Game as _, Player, with_game};

/// One rule set: its rules, positions, moves, observations and actions.
#[pyclass(name = "Game", module = "sawah", frozen)]
#[derive(Clone)]
pub struct PyGame {
    pub game: AnyGame,
}

/// A position of a rule set (immutable and hashable).
#[pyclass(name = "Position", module = "sawah", frozen)]
#[derive(Clone)]
pub struct PyPosition {
    pub game: AnyGame,
    pub position: AnyPosition,
}

/// A legal move: the square it leaves and the square it reaches (beyond
/// the board when the piece is borne off), and its action.
#[pyclass(name = "Move", module = "sawah", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyMove {
    /// The square the piece leaves (0: it enters).
    #[pyo3(get)]
    pub from_square: u8,
    /// The square it reaches.
    #[pyo3(get)]
    pub to_square: u8,
    /// Its action (see `Game.action_size`).
    #[pyo3(get)]
    pub action: usize,
    json: String,
}

impl PyGame {
    /// The rule set named `rules` (a name, or a rule file's path).
    pub fn resolve(rules: &str) -> PyResult<PyGame> {
        let game = crate::shipped::registry()
            .resolve(rules)
            .map_err(value_error)?;
        Ok(PyGame { game })
    }

    /// `position` as this rule set's, or an error naming both rule sets.
    pub fn position_of<G: Family>(&self, game: &G, position: &PyPosition) -> PyResult<G::Position> {
        G::unwrap(&position.position)
            .filter(|_| position.game.name() == game.name())
            .ok_or_else(|| {
                value_error(format!(
                    "the position is {}'s, not {}'s",
                    position.game.name(),
                    game.name()
                ))
            })
    }

    fn wrap<G: Family>(&self, _game: &G, position: G::Position) -> PyPosition {
        PyPosition {
            game: self.game.clone(),
            position: G::wrap(position),
        }
    }

    fn move_of<G: Family>(game: &G, mv: G::Move) -> PyMove {
        let (from_square, to_square) = G::squares(mv);
        PyMove {
            from_square,
            to_square,
            action: game.action_of(mv),
            json: game.move_to_json(mv).to_string(),
        }
    }

    fn apply_in<G: Family>(
        &self,
        game: &G,
        position: &PyPosition,
        chosen: Chosen,
        roll: Option<u8>,
    ) -> PyResult<(PyPosition, bool)> {
        let p = self.position_of(game, position)?;
        let rolls: Vec<u8> = match (roll, chosen) {
            (Some(roll), _) => vec![PyGame::check_roll(game, roll)?],
            (None, Chosen::Move(..)) => game.dice().outcomes().map(|(roll, _)| roll).collect(),
            (None, Chosen::Action(_)) => {
                return Err(value_error("an action needs the roll it was made for"));
            }
        };
        let legal = rolls.into_iter().find_map(|roll| match chosen {
            Chosen::Action(action) => move_of(game, &p, roll, action),
            Chosen::Move(from, to) => (game.legal_moves(&p, roll).iter())
                .find(|&&mv| G::squares(mv) == (from, to))
                .copied(),
        });
        let Some(mv) = legal else {
            let what = match chosen {
                Chosen::Action(action) => format!("action {action}"),
                Chosen::Move(from, to) => format!("the move {from} -> {to}"),
            };
            let with_roll = roll.map(|r| format!(" with roll {r}")).unwrap_or_default();
            return Err(value_error(format!("{what} is not legal here{with_roll}")));
        };
        let step = game.apply(&p, mv);
        Ok((self.wrap(game, step.position), step.extra_roll))
    }

    fn check_roll<G: Family>(game: &G, roll: u8) -> PyResult<u8> {
        if game.dice().probability(roll) > 0.0 {
            Ok(roll)
        } else {
            Err(value_error(format!(
                "{} cannot roll {roll}; rolls are 0 to {} (those of positive probability)",
                game.name(),
                game.dice().max_roll()
            )))
        }
    }
}

/// A move as Python gave it.
#[derive(Clone, Copy)]
enum Chosen {
    Move(u8, u8),
    Action(usize),
}

/// Parses a player's name (`light`, `dark`).
pub fn player(name: &str) -> PyResult<Player> {
    Player::parse(name)
        .ok_or_else(|| value_error(format!("{name:?} is not a player; light or dark")))
}

#[pymethods]
impl PyGame {
    /// The rule set named `rules` (`ur`, `senet`, … or a rule file's path).
    #[new]
    fn new(rules: &str) -> PyResult<PyGame> {
        PyGame::resolve(rules)
    }

    /// The rule set's id.
    #[getter]
    fn name(&self) -> String {
        self.game.name().to_string()
    }

    /// One line for people.
    #[getter]
    fn description(&self) -> String {
        self.game.description().to_string()
    }

    /// How many actions there are: an action names the square a piece moves
    /// from (race family: 0 enters, then the route's squares; Senet: house
    /// minus one).
    #[getter]
    fn action_size(&self) -> usize {
        with_game!(&self.game, g => g.action_size())
    }

    /// The length of an observation: the networks' encoding of the
    /// position, then the roll one-hot.
    #[getter]
    fn observation_size(&self) -> usize {
        with_game!(&self.game, g => observation_size(g))
    }

    /// The highest roll.
    #[getter]
    fn max_roll(&self) -> u8 {
        with_game!(&self.game, g => g.dice().max_roll())
    }

    /// The probability of each roll from 0 to `max_roll`.
    #[getter]
    fn roll_probabilities(&self) -> Vec<f64> {
        with_game!(&self.game, g => g.dice().probabilities().to_vec())
    }

    /// The starting position.
    fn start(&self) -> PyPosition {
        with_game!(&self.game, g => self.wrap(g, g.start()))
    }

    /// A position from notation (`"ur light 7/-/0 7/-/0"`) or its JSON
    /// form (a dict or JSON text).
    fn position(&self, py: Python<'_>, text_or_json: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let value = crate::errors::to_json_value(py, text_or_json)?;
        let (game, json) = crate::shipped::registry()
            .parse_position(&value)
            .map_err(value_error)?;
        if game.name() != self.game.name() {
            return Err(value_error(format!(
                "the position is {}'s, not {}'s",
                game.name(),
                self.game.name()
            )));
        }
        with_game!(&self.game, g => {
            let position = g.position_from_json(&json).map_err(value_error)?;
            Ok(self.wrap(g, position))
        })
    }

    /// The legal moves with `roll`, in the engine's order (empty: the turn
    /// passes).
    pub fn legal_moves(&self, position: &PyPosition, roll: u8) -> PyResult<Vec<PyMove>> {
        with_game!(&self.game, g => {
            let p = self.position_of(g, position)?;
            let roll = PyGame::check_roll(g, roll)?;
            Ok(g.legal_moves(&p, roll).iter().map(|&mv| PyGame::move_of(g, mv)).collect())
        })
    }

    /// The legal actions with `roll`, ascending.
    fn legal_actions(&self, position: &PyPosition, roll: u8) -> PyResult<Vec<usize>> {
        let mut actions: Vec<usize> = self
            .legal_moves(position, roll)?
            .iter()
            .map(|mv| mv.action)
            .collect();
        actions.sort_unstable();
        Ok(actions)
    }

    /// Plays `move` (a `Move`, or an action with the `roll` it was made
    /// for): the position after it, and whether the mover rolls again.
    #[pyo3(signature = (position, r#move, roll=None))]
    fn apply(
        &self,
        position: &PyPosition,
        r#move: &Bound<'_, PyAny>,
        roll: Option<u8>,
    ) -> PyResult<(PyPosition, bool)> {
        let chosen = match r#move.cast::<PyMove>() {
            Ok(mv) => Chosen::Move(mv.get().from_square, mv.get().to_square),
            Err(_) => Chosen::Action(r#move.extract::<usize>().map_err(|_| {
                value_error("a move is a Move, or an action (an int) with its roll")
            })?),
        };
        with_game!(&self.game, g => self.apply_in(g, position, chosen, roll))
    }

    /// The position after the side to move passes (it has no legal move).
    fn pass_turn(&self, position: &PyPosition) -> PyResult<PyPosition> {
        with_game!(&self.game, g => {
            let p = self.position_of(g, position)?;
            Ok(self.wrap(g, g.pass(&p)))
        })
    }

    /// The side to move: `"light"` or `"dark"`.
    fn turn(&self, position: &PyPosition) -> PyResult<&'static str> {
        with_game!(&self.game, g => Ok(g.turn(&self.position_of(g, position)?).name()))
    }

    /// The winner (`"light"`, `"dark"`), or None while the game goes on.
    fn winner(&self, position: &PyPosition) -> PyResult<Option<&'static str>> {
        with_game!(&self.game, g => Ok(g.winner(&self.position_of(g, position)?).map(Player::name)))
    }

    /// The observation of `position` (float32, 0 or 1): seen from `view`
    /// (default the side to move), with `roll` one-hot when given.
    #[pyo3(signature = (position, roll=None, view=None))]
    fn observe<'py>(
        &self,
        py: Python<'py>,
        position: &PyPosition,
        roll: Option<u8>,
        view: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let view = view.map(player).transpose()?;
        with_game!(&self.game, g => {
            let p = self.position_of(g, position)?;
            let roll = roll.map(|r| PyGame::check_roll(g, r)).transpose()?;
            let mut out = vec![0.0; observation_size(g)];
            observe(g, &p, view, roll, &mut Vec::new(), &mut out);
            Ok(PyArray1::from_vec(py, out))
        })
    }

    /// The observations of many positions at once, each from its side to
    /// move with its roll (`rolls`: one per position, or none): an array
    /// of shape (positions, observation_size).
    #[pyo3(signature = (positions, rolls=None))]
    fn observe_batch<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<PyRef<'py, PyPosition>>,
        rolls: Option<Vec<u8>>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        if let Some(rolls) = &rolls
            && rolls.len() != positions.len()
        {
            return Err(value_error(format!(
                "{} positions but {} rolls",
                positions.len(),
                rolls.len()
            )));
        }
        with_game!(&self.game, g => {
            let size = observation_size(g);
            let mut out = vec![0.0f32; positions.len() * size];
            let mut active = Vec::new();
            for (k, position) in positions.iter().enumerate() {
                let p = self.position_of(g, position)?;
                let roll = rolls.as_ref().map(|r| PyGame::check_roll(g, r[k])).transpose()?;
                observe(g, &p, None, roll, &mut active, &mut out[k * size..(k + 1) * size]);
            }
            Ok(PyArray1::from_vec(py, out).reshape([positions.len(), size])?)
        })
    }

    /// Which actions are legal with `roll` (a bool array of `action_size`).
    fn legal_mask<'py>(
        &self,
        py: Python<'py>,
        position: &PyPosition,
        roll: u8,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let mut mask = vec![false; self.action_size()];
        for mv in self.legal_moves(position, roll)? {
            mask[mv.action] = true;
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// The legal actions of many positions at once, each with its roll: a
    /// bool array of shape (positions, action_size).
    fn legal_masks<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<PyRef<'py, PyPosition>>,
        rolls: Vec<u8>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        if rolls.len() != positions.len() {
            return Err(value_error(format!(
                "{} positions but {} rolls",
                positions.len(),
                rolls.len()
            )));
        }
        with_game!(&self.game, g => {
            let size = g.action_size();
            let mut out = vec![false; positions.len() * size];
            for (k, (position, &roll)) in positions.iter().zip(&rolls).enumerate() {
                let p = self.position_of(g, position)?;
                let roll = PyGame::check_roll(g, roll)?;
                for &mv in g.legal_moves(&p, roll).iter() {
                    out[k * size + g.action_of(mv)] = true;
                }
            }
            Ok(PyArray1::from_vec(py, out).reshape([positions.len(), size])?)
        })
    }

    /// Everything a front end needs to draw and play the rule set (the
    /// protocol's `rules` answer).
    fn export(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let text = with_game!(&self.game, g => g.export_text());
        crate::errors::from_json_text(py, &text)
    }

    fn __repr__(&self) -> String {
        format!("Game({:?})", self.game.name())
    }
}

#[pymethods]
impl PyPosition {
    /// The rule set's id.
    #[getter]
    fn rules(&self) -> String {
        self.game.name().to_string()
    }

    /// The side to move.
    #[getter]
    fn turn(&self) -> &'static str {
        match self.position {
            AnyPosition::Race(p) => p.turn().name(),
            AnyPosition::Senet(p) => p.turn().name(),
        }
    }

    /// The position in notation.
    #[getter]
    fn notation(&self) -> String {
        sawah_engine::notation::format(&self.json())
    }

    /// The JSON form (a dict), as the protocol writes it.
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let text = serde_json::to_string(&self.json()).map_err(value_error)?;
        crate::errors::from_json_text(py, &text)
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.notation())
    }

    fn __str__(&self) -> String {
        self.notation()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyPosition>().is_ok_and(|other| {
            let other = other.get();
            other.position == self.position && other.game.name() == self.game.name()
        })
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.game.name().hash(&mut hasher);
        self.position.hash(&mut hasher);
        hasher.finish()
    }
}

impl PyPosition {
    fn json(&self) -> sawah_engine::json::PositionJson {
        match (&self.game, self.position) {
            (AnyGame::Race(g), AnyPosition::Race(p)) => g.position_to_json(&p),
            (AnyGame::Senet(g), AnyPosition::Senet(p)) => g.position_to_json(&p),
            _ => unreachable!("a position is made only with its own family's game"),
        }
    }
}

#[pymethods]
impl PyMove {
    /// The JSON form (a dict), as the protocol writes it.
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::errors::from_json_text(py, &self.json)
    }

    fn __repr__(&self) -> String {
        format!(
            "Move({} -> {}, action={})",
            self.from_square, self.to_square, self.action
        )
    }
}
