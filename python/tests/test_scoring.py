"""Scoring a Python agent: paired dice as `sawah match` plays them, and
the loss per move against perfect play."""

import re
import subprocess

import numpy as np

import sawah


def test_an_agent_scores_what_sawah_match_reports(sawah_bin):
    first, second = "heuristic", "expectiminimax:depth=1"
    result = sawah.score(sawah.Agent(first, "ur-2"), rules="ur-2", opponent=second, pairs=10, seed=3)
    report = subprocess.run(
        [sawah_bin, "match", "--rules", "ur-2", first, second, "--games", "20", "--seed", "3"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wins = re.search(r"heuristic wins (\d+), expectiminimax:depth=1 wins (\d+)", report)
    score = re.search(r"score ([0-9.]+) \(95% CI ([0-9.]+) to ([0-9.]+)\)", report)
    assert (result.wins, result.losses) == (int(wins[1]), int(wins[2]))
    assert f"{result.score:.3f}" == score[1]
    assert (f"{result.low:.3f}", f"{result.high:.3f}") == (score[2], score[3])


def test_perfect_play_loses_nothing_and_random_play_does(ur2_table):
    path, _ = ur2_table
    perfect = sawah.score(sawah.Agent(f"perfect:table={path}", "ur-2"), "ur-2", "random", pairs=20, table=str(path))
    assert perfect.decisions > 100 and perfect.mean_loss_pp < 1e-4
    assert perfect.score > 0.6
    rng = np.random.default_rng(0)

    def random_policy(observation, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    random = sawah.score(random_policy, "ur-2", "random", pairs=20, table=str(path))
    assert random.mean_loss_pp > 1.0
    assert 0.2 < random.score < 0.8
    assert "mean loss" in str(random)


def test_an_illegal_action_loses_its_game():
    result = sawah.score(lambda observation, mask: 99, "ur-2", "random", pairs=3)
    assert result.losses == 6 and result.score == 0.0
