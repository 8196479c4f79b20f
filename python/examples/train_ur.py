"""Trains a small agent on the three-piece Royal Game of Ur (``ur-3``) with
sb3-contrib's MaskablePPO against ``random``, then scores it: against
``random`` and ``easy`` with paired dice, and against perfect play (its mean
loss per decision, from a table solved first). A random policy is scored
the same way for comparison.

    pip install sb3-contrib        # brings Stable-Baselines3 and PyTorch
    python python/examples/train_ur.py --minutes 3 --seed 1

Everything follows from ``--seed`` (PyTorch's own kernels aside). With
``--minutes 3 --seed 1`` on two cores (2026-12-03): 436,544 steps; the agent
scored 0.786 against random and 0.521 against easy, losing 0.80 points of
win probability per decision against perfect play (a random policy: 0.499,
0.264 and 1.98 points). See docs/python.md.
"""

import argparse
import os
import tempfile
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv

import sawah


class TimeLimit(BaseCallback):
    """Stops learning after a wall-clock budget."""

    def __init__(self, seconds):
        super().__init__()
        self.deadline = time.monotonic() + seconds

    def _on_step(self):
        return time.monotonic() < self.deadline


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="ur-3", help="a small race rule set: ur-2 or ur-3")
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=500, help="pairs of games per score")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    print(f"sawah {sawah.version()}, rules {args.rules}, seed {args.seed}, {args.minutes} minutes")

    def make(rank):
        def build():
            env = sawah.SawahEnv(args.rules, opponent="random")
            env.reset(seed=args.seed * 1000 + rank)
            return env

        return build

    env = DummyVecEnv([make(rank) for rank in range(8)])
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=512,
        learning_rate=3e-4,
        gamma=1.0,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [64, 64]},
        seed=args.seed,
        verbose=0,
    )
    start = time.monotonic()
    model.learn(total_timesteps=10**9, callback=TimeLimit(60 * args.minutes))
    trained_for = time.monotonic() - start
    print(f"trained {model.num_timesteps:,} steps in {trained_for:.0f} s ({model.num_timesteps / trained_for:,.0f} steps/s)")

    with tempfile.TemporaryDirectory() as folder:
        table_path = os.path.join(folder, f"{args.rules}.table")
        start_value = sawah.solve(args.rules, table_path)
        print(f"solved {args.rules}: the first player wins {start_value:.4f} of games with perfect play")
        table = sawah.Table(table_path)

        def trained(observation, mask):
            action, _ = model.predict(observation, action_masks=mask, deterministic=True)
            return int(action)

        rng = np.random.default_rng(args.seed)

        def random_policy(observation, mask):
            return int(rng.choice(np.flatnonzero(mask)))

        for name, policy in [("trained", trained), ("random", random_policy)]:
            for opponent in ["random", "easy"]:
                result = sawah.score(policy, args.rules, opponent, pairs=args.pairs, seed=args.seed, table=table)
                print(f"{name}: {result}")


if __name__ == "__main__":
    main()
