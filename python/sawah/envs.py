"""Gymnasium environments: one learner against an opponent.

Observations are the networks' encoding of the position, seen from the
learner, followed by the roll one-hot (float32, every entry 0 or 1). An
action names the square a piece moves from (race family: 0 enters a
waiting piece, then the route's squares; Senet: the house minus one); with
the roll it names at most one move. The legal actions are in
``info["action_mask"]`` and ``env.action_masks()`` (the method
sb3-contrib's ``MaskablePPO`` calls). Turns without a legal move pass by
themselves: the learner only sees positions where it has a choice to make
or a single legal move to play.

The reward is +1 for a win and -1 for a loss, at the end. An illegal action
loses the game (``illegal="lose"``, as PettingZoo's classic games do) or
raises ``ValueError`` (``illegal="raise"``).
"""

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from sawah._native import CoreEnv, CoreVecEnv, Game

_SEED_BOUND = 2**63


class SawahEnv(gymnasium.Env):
    """One game of ``rules`` against ``opponent`` (a level such as
    ``"hard"``, or any agent spec such as ``"expectiminimax:depth=2"`` or
    ``"perfect:table=ur-2.table"``).

    ``seat`` is the learner's side, ``"light"`` (moves first) or
    ``"dark"``; None draws it for every episode. ``reset(options=...)``
    takes ``"seat"`` and ``"dice_seed"`` to set one episode exactly; with
    the same dice seed and the opponent's spec seeded as ``sawah match``
    seeds it, an episode is one game of a CLI match.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rules="ur", opponent="random", seat=None, illegal="lose", render_mode=None):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: None or 'ansi'")
        if seat not in (None, "light", "dark"):
            raise ValueError(f"seat {seat!r}: 'light', 'dark' or None")
        self.game = Game(rules)
        self.opponent = opponent
        self.seat = seat
        self.render_mode = render_mode
        self._core = CoreEnv(rules, opponent, illegal)
        self.observation_space = spaces.Box(0.0, 1.0, (self.game.observation_size,), np.float32)
        self.action_space = spaces.Discrete(self.game.action_size)
        self._episode_seat = seat or "light"
        self._mask = np.zeros(self.action_space.n, dtype=bool)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = options or {}
        dice_seed = options.get("dice_seed")
        if dice_seed is None:
            dice_seed = int(self.np_random.integers(0, _SEED_BOUND))
        seat = options.get("seat", self.seat)
        if seat is None:
            seat = "light" if self.np_random.integers(0, 2) == 0 else "dark"
        self._episode_seat = seat
        self._core.reset(int(dice_seed), seat)
        observation, mask, roll = self._core.view()
        self._mask = mask
        return observation, {"action_mask": mask, "roll": roll, "seat": seat}

    def step(self, action):
        observation, reward, terminated, truncated, mask, roll = self._core.step_for(int(action))
        self._mask = mask
        return observation, reward, terminated, truncated, {"action_mask": mask, "roll": roll, "seat": self._episode_seat}

    def action_masks(self):
        """The legal actions (a bool array of ``action_space.n``)."""
        return self._mask

    @property
    def position(self):
        """The current ``sawah.Position``."""
        return self._core.position

    @property
    def roll(self):
        """The roll the learner is to play."""
        return self._core.roll

    def render(self):
        if self.render_mode != "ansi":
            return None
        core = self._core
        if core.status == "playing":
            state = f"{core.mover} to move with roll {core.roll}"
        elif core.winner is not None:
            state = f"{core.winner} won"
        else:
            state = "stopped"
        return f"{core.position.notation}  ({state}; the learner plays {self._episode_seat})"


class SawahVectorEnv(VectorEnv):
    """``num_envs`` games stepped together in Rust, with same-step
    autoreset: an episode that ends is started again in the same step, its
    final observation in ``info["final_obs"]`` (and ``info["_final_obs"]``
    marking which). ``info["action_mask"]`` holds every environment's
    legal actions; ``sample_legal_actions()`` draws random legal ones.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, rules="ur", num_envs=64, opponent="random", seat=None, illegal="lose"):
        self.game = Game(rules)
        self.num_envs = num_envs
        self._core = CoreVecEnv(rules, num_envs, opponent, seat, illegal, 0)
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.game.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(self.game.action_size)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._masks = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        run_seed = int(self._np_random.integers(0, _SEED_BOUND))
        observations, self._masks = self._core.reset(run_seed)
        return observations, {"action_mask": self._masks}

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        observations, rewards, terminated, truncated, self._masks, ended, final = self._core.step(actions)
        info = {"action_mask": self._masks}
        if len(ended):
            final_obs = np.empty(self.num_envs, dtype=object)
            marked = np.zeros(self.num_envs, dtype=bool)
            for row, k in enumerate(ended):
                final_obs[k] = final[row]
                marked[k] = True
            info["final_obs"] = final_obs
            info["_final_obs"] = marked
            info["final_info"] = {}
            info["_final_info"] = marked
        return observations, rewards, terminated, truncated, info

    def action_masks(self):
        """Every environment's legal actions (bool, ``(num_envs, actions)``)."""
        return self._masks

    def sample_legal_actions(self):
        """A uniformly random legal action per environment, drawn in Rust."""
        return self._core.sample_actions()


def _register():
    """Registers ``sawah/<rules>-v0`` with Gymnasium for every built-in
    rule set (``gymnasium.make("sawah/ur-v0", opponent="hard")``)."""
    from sawah._native import rule_sets

    for rules in rule_sets():
        env_id = f"sawah/{rules}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="sawah.envs:SawahEnv", kwargs={"rules": rules})


_register()
