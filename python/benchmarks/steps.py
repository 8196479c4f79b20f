"""Environment steps per second: one Gymnasium environment, and batches of
vectorised ones, against ``random``. The learner's actions are the first
legal action (single environment) or random legal actions drawn in Rust
(vectorised), so that what is timed is the environment, not the choice.

    python python/benchmarks/steps.py [--rules ur] [--steps 400000]
"""

import argparse
import time

import numpy as np

from sawah import SawahEnv, SawahVectorEnv


def single(rules, steps):
    env = SawahEnv(rules, opponent="random", seat="light")
    _, info = env.reset(seed=0)
    mask = info["action_mask"]
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(int(mask.argmax()))
        mask = info["action_mask"]
        if terminated or truncated:
            _, info = env.reset()
            mask = info["action_mask"]
    return steps / (time.perf_counter() - start)


def vectorised(rules, count, steps):
    env = SawahVectorEnv(rules, count, opponent="random")
    env.reset(seed=0)
    batches = max(1, steps // count)
    start = time.perf_counter()
    for _ in range(batches):
        env.step(env.sample_legal_actions())
    return batches * count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="ur")
    parser.add_argument("--steps", type=int, default=400_000)
    args = parser.parse_args()
    print(f"rules {args.rules}, numpy {np.__version__}")
    print(f"single environment: {single(args.rules, args.steps):,.0f} steps/s")
    for count in (16, 64, 256):
        rate = vectorised(args.rules, count, 4 * args.steps)
        print(f"{count} vectorised environments: {rate:,.0f} steps/s")


if __name__ == "__main__":
    main()
