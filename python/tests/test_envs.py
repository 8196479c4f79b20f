"""The Gymnasium and PettingZoo environments: the official checkers,
reproducibility by seed, the vectorised environments, and bad input."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import sawah
from sawah import SawahAECEnv, SawahEnv, SawahVectorEnv


@pytest.mark.parametrize("rules", ["ur", "ur-2", "masters", "senet"])
def test_gymnasium_checker_passes(rules):
    check_env(SawahEnv(rules, opponent="random"), skip_render_check=True)
    check_env(SawahEnv(rules, opponent="easy", seat="dark", render_mode="ansi"))


@pytest.mark.parametrize("rules", ["ur", "senet"])
def test_pettingzoo_checker_passes(rules):
    api_test(SawahAECEnv(rules), num_cycles=300)


def test_registered_with_gymnasium():
    import gymnasium

    env = gymnasium.make("sawah/ur-v0", opponent="medium")
    observation, info = env.reset(seed=3)
    assert observation.shape == (65,) and info["action_mask"].any()
    env.close()


def play(env, seed, steps=400):
    """A trajectory with the first legal action every time."""
    observation, info = env.reset(seed=seed)
    trace = [observation.tobytes()]
    for _ in range(steps):
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, reward, terminated, truncated, info = env.step(action)
        trace.append((observation.tobytes(), reward, terminated, truncated, info["roll"]))
        if terminated or truncated:
            observation, info = env.reset()
            trace.append(observation.tobytes())
    return trace


@pytest.mark.parametrize("opponent", ["random", "easy", "heuristic:noise=0.3"])
def test_the_same_seed_gives_the_same_episodes(opponent):
    first = play(SawahEnv("ur", opponent=opponent), seed=11)
    second = play(SawahEnv("ur", opponent=opponent), seed=11)
    other = play(SawahEnv("ur", opponent=opponent), seed=12)
    assert first == second
    assert first != other


def test_episodes_end_with_plus_or_minus_one_and_masks_are_legal():
    env = SawahEnv("ur-3", opponent="random")
    game = env.game
    rewards = []
    for seed in range(20):
        _, info = env.reset(seed=seed)
        while True:
            mask = info["action_mask"]
            assert np.array_equal(mask, game.legal_mask(env.position, env.roll))
            assert env.position.turn == info["seat"]
            _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
            if terminated:
                rewards.append(reward)
                break
            assert reward == 0 and not truncated
    assert set(rewards) <= {1.0, -1.0} and len(set(rewards)) == 2


def test_illegal_actions_lose_or_raise():
    env = SawahEnv("ur", opponent="random", seat="light")
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, _ = env.step(illegal)
    assert terminated and reward == -1.0
    with pytest.raises(ValueError, match="game is over"):
        env.step(0)
    strict = SawahEnv("ur", opponent="random", seat="light", illegal="raise")
    _, info = strict.reset(seed=1)
    with pytest.raises(ValueError, match="legal actions"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="negative"):
        strict.step(-1)
    with pytest.raises(ValueError, match="seat"):
        SawahEnv("ur", seat="white")
    with pytest.raises(ValueError, match="illegal="):
        SawahEnv("ur", illegal="ignore")
    with pytest.raises(ValueError, match="grandmaster"):
        SawahEnv("ur", opponent="grandmaster")


def test_the_dice_seed_and_seat_set_an_episode_exactly():
    env = SawahEnv("ur", opponent="hard")
    a, info_a = env.reset(options={"dice_seed": 42, "seat": "dark"})
    b, info_b = env.reset(seed=999, options={"dice_seed": 42, "seat": "dark"})
    assert np.array_equal(a, b) and info_a["roll"] == info_b["roll"] and info_a["seat"] == "dark"


def test_the_vector_environment_autoresets_in_the_same_step_and_is_reproducible():
    def run(seed):
        env = SawahVectorEnv("ur-2", num_envs=8, opponent="random")
        observations, info = env.reset(seed=seed)
        assert observations.shape == (8, env.game.observation_size)
        assert info["action_mask"].shape == (8, env.game.action_size)
        ended, totals = 0, []
        for _ in range(300):
            actions = env.sample_legal_actions()
            assert all(info["action_mask"][k, a] for k, a in enumerate(actions))
            observations, rewards, terminated, truncated, info = env.step(actions)
            totals.append(observations.sum())
            if "final_obs" in info:
                for k in np.flatnonzero(info["_final_obs"]):
                    assert terminated[k] and rewards[k] in (1.0, -1.0)
                    assert info["final_obs"][k].shape == (env.game.observation_size,)
                    ended += 1
            assert not any(rewards[~terminated])
        return ended, totals

    first, second = run(5), run(5)
    assert first == second and first[0] > 10
    assert run(6)[1] != first[1]


def test_the_vector_environment_refuses_bad_input():
    env = SawahVectorEnv("ur", num_envs=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="3 actions for 4 environments"):
        env._core.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="from 1 to 65536"):
        SawahVectorEnv("ur", num_envs=0)


def test_two_learners_take_turns_with_extra_rolls_in_the_aec_environment():
    env = SawahAECEnv("ur")
    env.reset(seed=4)
    movers, final = [], {}
    for agent in env.agent_iter(max_iter=2000):
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        movers.append(agent)
        assert observation["action_mask"].sum() >= 1
        other = "dark" if agent == "light" else "light"
        assert env.observe(other)["action_mask"].sum() == 0
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert final["light"] == -final["dark"] != 0
    assert any(a == b for a, b in zip(movers, movers[1:])), "a rosette gives the same agent another turn"
