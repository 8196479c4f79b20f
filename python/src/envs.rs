//! `sawah._native.CoreEnv` and `sawah._native.CoreVecEnv`: the environment core
//! for Python. The Gymnasium and PettingZoo classes (`sawah/envs.py`,
//! `sawah/pettingzoo.py`) are thin layers over these.

use crate::env::{DynEnv, Env, OnIllegal, Status};
use crate::errors::value_error;
use crate::game::{PyGame, PyPosition, player};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use rand::RngCore;
use sawah_engine::registry::AnyGame;
use sawah_engine::{DiceSource, Player};
use std::sync::Mutex;

/// Builds the environment of `rules` against `opponent` (none: two
/// learners).
fn build(game: &PyGame, opponent: Option<&str>, illegal: &str) -> PyResult<Box<dyn DynEnv>> {
    let on_illegal = match illegal {
        "lose" => OnIllegal::Lose,
        "raise" => OnIllegal::Raise,
        other => {
            return Err(value_error(format!(
                "illegal={other:?}: \"lose\" or \"raise\""
            )));
        }
    };
    let spec = opponent
        .map(|text| crate::shipped::spec(text, game.game.name()))
        .transpose()
        .map_err(value_error)?;
    let assets = crate::shipped::assets();
    Ok(match &game.game {
        AnyGame::Race(g) => {
            Box::new(Env::new(g.clone(), spec, assets, on_illegal).map_err(value_error)?)
        }
        AnyGame::Senet(g) => {
            Box::new(Env::new(g.clone(), spec, assets, on_illegal).map_err(value_error)?)
        }
    })
}

/// A seat as Python gives it: `"light"`, `"dark"`, or None.
fn seat(name: Option<&str>) -> PyResult<Option<Player>> {
    name.map(player).transpose()
}

/// One game against an opponent (or between two learners), stepped by
/// actions. See `sawah.SawahEnv` for the Gymnasium environment.
#[pyclass(module = "sawah._native", frozen)]
pub struct CoreEnv {
    game: PyGame,
    env: Mutex<Box<dyn DynEnv>>,
}

impl CoreEnv {
    fn env(&self) -> std::sync::MutexGuard<'_, Box<dyn DynEnv>> {
        self.env
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl CoreEnv {
    /// An environment of `rules` against `opponent` (a level or spec; None
    /// for two learners). `illegal`: `"lose"` (an illegal action loses
    /// the game) or `"raise"` (it is refused with a ValueError).
    #[new]
    #[pyo3(signature = (rules, opponent=Some("random"), illegal="lose"))]
    fn new(rules: &str, opponent: Option<&str>, illegal: &str) -> PyResult<CoreEnv> {
        let game = PyGame::resolve(rules)?;
        let env = build(&game, opponent, illegal)?;
        Ok(CoreEnv {
            game,
            env: Mutex::new(env),
        })
    }

    /// Starts a game with the dice of `dice_seed`, the learner on `seat`
    /// (`"light"` or `"dark"`; ignored with two learners).
    #[pyo3(signature = (dice_seed, seat=None))]
    fn reset(&self, dice_seed: u64, seat: Option<&str>) -> PyResult<()> {
        let seat = self::seat(seat)?;
        self.env().reset(dice_seed, seat);
        Ok(())
    }

    /// Plays `action` for the side to move, then the opponent.
    fn step(&self, action: i64) -> PyResult<()> {
        let action = usize::try_from(action)
            .map_err(|_| value_error(format!("action {action} is negative")))?;
        self.env().step(action).map_err(value_error)
    }

    /// Plays `action` and returns what a Gymnasium step needs, seen from
    /// the learner: (observation, reward, terminated, truncated, action
    /// mask, roll), in one call.
    fn step_for<'py>(&self, py: Python<'py>, action: i64) -> PyResult<GymStep<'py>> {
        let mut env = self.env();
        let action = usize::try_from(action)
            .map_err(|_| value_error(format!("action {action} is negative")))?;
        env.step(action).map_err(value_error)?;
        let (reward, terminated, truncated) = outcome(env.status(), env.seat());
        let (observation, mask) = gym_view(&mut **env);
        Ok((
            PyArray1::from_vec(py, observation),
            reward,
            terminated,
            truncated,
            PyArray1::from_vec(py, mask),
            env.roll(),
        ))
    }

    /// The learner's view after a reset: (observation, action mask, roll).
    fn view<'py>(&self, py: Python<'py>) -> GymView<'py> {
        let mut env = self.env();
        let (observation, mask) = gym_view(&mut **env);
        (
            PyArray1::from_vec(py, observation),
            PyArray1::from_vec(py, mask),
            env.roll(),
        )
    }

    /// The observation from `view` (`"light"`/`"dark"`; default the side to
    /// move). Only the side to move sees its roll.
    #[pyo3(signature = (view=None))]
    fn observe<'py>(
        &self,
        py: Python<'py>,
        view: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let view = seat(view)?;
        let mut env = self.env();
        let mut obs = vec![0.0; env.sizes().0];
        env.observe(view, &mut obs);
        Ok(PyArray1::from_vec(py, obs))
    }

    /// Which actions the side to move may take (all False once over).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let env = self.env();
        let mut mask = vec![false; env.sizes().1];
        env.mask(&mut mask);
        PyArray1::from_vec(py, mask)
    }

    /// The legal actions of the side to move, ascending.
    fn legal_actions(&self) -> Vec<usize> {
        self.env().legal_actions()
    }

    /// The reward of `player` so far: 1 won, -1 lost, 0 otherwise.
    fn reward(&self, player: &str) -> PyResult<f32> {
        let player = self::player(player)?;
        Ok(outcome(self.env().status(), Some(player)).0)
    }

    /// `"playing"`, `"over"` or `"truncated"`.
    #[getter]
    fn status(&self) -> &'static str {
        match self.env().status() {
            Status::Playing => "playing",
            Status::Over { .. } => "over",
            Status::Truncated => "truncated",
        }
    }

    /// The winner once over, else None.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        match self.env().status() {
            Status::Over { winner, .. } => Some(winner.name()),
            _ => None,
        }
    }

    /// Whether the game ended by an illegal action.
    #[getter]
    fn illegal(&self) -> bool {
        matches!(self.env().status(), Status::Over { illegal: true, .. })
    }

    /// The side to move.
    #[getter]
    fn mover(&self) -> &'static str {
        self.env().mover().name()
    }

    /// The learner's seat (None with two learners).
    #[getter]
    fn seat(&self) -> Option<&'static str> {
        self.env().seat().map(Player::name)
    }

    /// The roll of the side to move.
    #[getter]
    fn roll(&self) -> u8 {
        self.env().roll()
    }

    /// Rolls so far in this game.
    #[getter]
    fn rolls(&self) -> u64 {
        self.env().rolls()
    }

    /// The position.
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition {
            game: self.game.game.clone(),
            position: self.env().position(),
        }
    }

    /// The rule set.
    #[getter]
    fn game(&self) -> PyGame {
        self.game.clone()
    }
}

/// What a Gymnasium step returns, with the action mask and the roll.
type GymStep<'py> = (
    Bound<'py, PyArray1<f32>>,
    f32,
    bool,
    bool,
    Bound<'py, PyArray1<bool>>,
    u8,
);

/// The learner's observation, action mask and roll.
type GymView<'py> = (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<bool>>, u8);

/// The observation from the learner's seat and the action mask.
fn gym_view(env: &mut dyn DynEnv) -> (Vec<f32>, Vec<bool>) {
    let (size, actions) = env.sizes();
    let mut observation = vec![0.0; size];
    let view = env.seat();
    env.observe(view, &mut observation);
    let mut mask = vec![false; actions];
    env.mask(&mut mask);
    (observation, mask)
}

/// A step's reward for `view` (none: the side that won gets nothing to
/// compare with, so 0) and whether the episode terminated or was truncated.
fn outcome(status: Status, view: Option<Player>) -> (f32, bool, bool) {
    match status {
        Status::Playing => (0.0, false, false),
        Status::Truncated => (0.0, false, true),
        Status::Over { winner, .. } => {
            let reward = match view {
                Some(view) if view == winner => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            (reward, true, false)
        }
    }
}

/// Many environments stepped together, with the episodes that end started
/// again in the same step (Gymnasium's same-step autoreset). Each
/// environment's episodes take their dice seeds, and the learner's seat,
/// from their own seeded stream, so a run follows from its seed.
#[pyclass(module = "sawah._native", frozen)]
pub struct CoreVecEnv {
    inner: Mutex<VecInner>,
    sizes: (usize, usize),
}

struct VecInner {
    envs: Vec<Box<dyn DynEnv>>,
    /// Each environment's stream of episode seeds and seats.
    seeders: Vec<DiceSource>,
    /// The learner's seat for every episode, or none for a random one.
    seat: Option<Player>,
    /// Random legal actions (`sample_actions`).
    sampler: DiceSource,
}

impl VecInner {
    fn start_episode(&mut self, k: usize) {
        let seeder = &mut self.seeders[k];
        let dice_seed = seeder.rng().next_u64();
        let seat = self.seat.unwrap_or(if seeder.below(2) == 0 {
            Player::Light
        } else {
            Player::Dark
        });
        self.envs[k].reset(dice_seed, Some(seat));
    }
}

/// Arrays returned by one vectorised step.
type VecStep<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<f32>>,
);

#[pymethods]
impl CoreVecEnv {
    /// `count` environments of `rules` against `opponent`, the learner on
    /// `seat` (`"light"`, `"dark"`, or None: drawn per episode).
    #[new]
    #[pyo3(signature = (rules, count, opponent="random", seat=None, illegal="lose", seed=0))]
    fn new(
        rules: &str,
        count: usize,
        opponent: &str,
        seat: Option<&str>,
        illegal: &str,
        seed: u64,
    ) -> PyResult<CoreVecEnv> {
        if count == 0 || count > 1 << 16 {
            return Err(value_error(format!(
                "count {count}: from 1 to 65536 environments"
            )));
        }
        let game = PyGame::resolve(rules)?;
        let seat = self::seat(seat)?;
        let envs = (0..count)
            .map(|_| build(&game, Some(opponent), illegal))
            .collect::<PyResult<Vec<_>>>()?;
        let sizes = envs[0].sizes();
        let mut inner = VecInner {
            envs,
            seeders: Vec::new(),
            seat,
            sampler: DiceSource::from_seed(0),
        };
        inner.reseed(seed);
        Ok(CoreVecEnv {
            inner: Mutex::new(inner),
            sizes,
        })
    }

    /// Starts every environment again from `seed`; returns the
    /// observations and the action masks.
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: u64,
    ) -> (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<bool>>) {
        let mut inner = self.lock();
        inner.reseed(seed);
        let n = inner.envs.len();
        for k in 0..n {
            inner.start_episode(k);
        }
        let (obs, masks) = self.observe_all(&mut inner);
        (
            to_2d(py, obs, n, self.sizes.0),
            to_2d(py, masks, n, self.sizes.1),
        )
    }

    /// Plays one action per environment (int array); returns the
    /// observations, rewards, terminated, truncated, action masks, the
    /// indices of the environments whose episodes ended (and were started
    /// again) and their final observations.
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<VecStep<'py>> {
        let actions = actions.as_slice()?;
        let mut inner = self.lock();
        let n = inner.envs.len();
        if actions.len() != n {
            return Err(value_error(format!(
                "{} actions for {n} environments",
                actions.len()
            )));
        }
        let (obs_size, _) = self.sizes;
        let mut rewards = vec![0.0f32; n];
        let mut terminated = vec![false; n];
        let mut truncated = vec![false; n];
        let mut ended = Vec::new();
        let mut final_obs = Vec::new();
        for (k, &action) in actions.iter().enumerate() {
            let action = usize::try_from(action).unwrap_or(usize::MAX);
            let env = &mut inner.envs[k];
            env.step(action)
                .map_err(|e| value_error(format!("environment {k}: {e}")))?;
            let (reward, term, trunc) = outcome(env.status(), env.seat());
            (rewards[k], terminated[k], truncated[k]) = (reward, term, trunc);
            if term || trunc {
                let start = final_obs.len();
                final_obs.resize(start + obs_size, 0.0);
                let view = env.seat();
                env.observe(view, &mut final_obs[start..]);
                ended.push(k as i64);
                inner.start_episode(k);
            }
        }
        let (obs, masks) = self.observe_all(&mut inner);
        let ended_count = ended.len();
        Ok((
            to_2d(py, obs, n, obs_size),
            PyArray1::from_vec(py, rewards),
            PyArray1::from_vec(py, terminated),
            PyArray1::from_vec(py, truncated),
            to_2d(py, masks, n, self.sizes.1),
            PyArray1::from_vec(py, ended),
            to_2d(py, final_obs, ended_count, obs_size),
        ))
    }

    /// A uniformly random legal action per environment (from the stream
    /// seeded at reset).
    fn sample_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let mut inner = self.lock();
        let VecInner { envs, sampler, .. } = &mut *inner;
        let actions = envs
            .iter()
            .map(|env| env.random_action(sampler).map_or(0, |a| a as i64))
            .collect();
        PyArray1::from_vec(py, actions)
    }

    /// How many environments.
    fn __len__(&self) -> usize {
        self.lock().envs.len()
    }

    /// (observation size, action size).
    #[getter]
    fn sizes(&self) -> (usize, usize) {
        self.sizes
    }
}

impl CoreVecEnv {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn observe_all(&self, inner: &mut VecInner) -> (Vec<f32>, Vec<bool>) {
        let (obs_size, actions) = self.sizes;
        let n = inner.envs.len();
        let mut obs = vec![0.0f32; n * obs_size];
        let mut masks = vec![false; n * actions];
        for (k, env) in inner.envs.iter_mut().enumerate() {
            let view = env.seat();
            env.observe(view, &mut obs[k * obs_size..(k + 1) * obs_size]);
            env.mask(&mut masks[k * actions..(k + 1) * actions]);
        }
        (obs, masks)
    }
}

impl VecInner {
    fn reseed(&mut self, seed: u64) {
        let mut root = DiceSource::from_seed(seed);
        self.seeders = (0..self.envs.len())
            .map(|_| DiceSource::from_seed(root.rng().next_u64()))
            .collect();
        self.sampler = DiceSource::from_seed(root.rng().next_u64());
    }
}

/// A flat vector as a (rows, columns) array.
fn to_2d<T: numpy::Element>(
    py: Python<'_>,
    data: Vec<T>,
    rows: usize,
    columns: usize,
) -> Bound<'_, PyArray2<T>> {
    PyArray1::from_vec(py, data)
        .reshape([rows, columns])
        .expect("the data has rows × columns elements")
}
