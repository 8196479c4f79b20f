"""A PettingZoo AEC environment: two learners, ``"light"`` and ``"dark"``.

Each agent observes ``{"observation": ..., "action_mask": ...}``: the
networks' encoding of the position seen from that agent, with the roll
one-hot when it is the agent's turn, and its legal actions (int8; all zero
when it is not its turn). The same agent acts again after a roll that
grants another. Turns without a legal move pass by themselves. The winner
gets +1 and the loser -1; an illegal action loses the game.
"""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from sawah._native import CoreEnv, Game

_SEED_BOUND = 2**63


class SawahAECEnv(AECEnv):
    """Two learners play one game of ``rules``."""

    metadata = {"render_modes": ["ansi"], "name": "sawah_v0", "is_parallelizable": False, "render_fps": 4}

    def __init__(self, rules="ur", render_mode=None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: None or 'ansi'")
        self.game = Game(rules)
        self.render_mode = render_mode
        self.possible_agents = ["light", "dark"]
        self._core = CoreEnv(rules, None, "lose")
        size, actions = self.game.observation_size, self.game.action_size
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for space in self.action_spaces.values():
                space.seed(seed)
        options = options or {}
        dice_seed = options.get("dice_seed")
        if dice_seed is None:
            dice_seed = int(self._rng.integers(0, _SEED_BOUND))
        self._core.reset(int(dice_seed))
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self._core.mover

    def observe(self, agent):
        mask = np.zeros(self.game.action_size, dtype=np.int8)
        if self._core.status == "playing" and agent == self._core.mover:
            mask[self._core.legal_actions()] = 1
        return {"observation": self._core.observe(agent), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._core.step(int(action))
        status = self._core.status
        if status == "playing":
            self.agent_selection = self._core.mover
        else:
            for name in self.agents:
                self.rewards[name] = self._core.reward(name)
                self.terminations[name] = status == "over"
                self.truncations[name] = status == "truncated"
        self._accumulate_rewards()

    def render(self):
        if self.render_mode != "ansi":
            return None
        core = self._core
        state = f"{core.mover} to move with roll {core.roll}" if core.status == "playing" else f"{core.winner} won"
        return f"{core.position.notation}  ({state})"

    def close(self):
        pass
