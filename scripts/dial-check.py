#!/usr/bin/env python3
"""Checks the strength dial (`elo=N`) of every rule set against its target.

For each rule set, a round robin of random, easy, medium, hard and three
dial opponents (elo=T at 150 below easy, or half of easy's Elo where that
is less far, between easy and medium, and between medium and hard), 1,000
paired games per pairing. The tournament's Elo are put on the calibration
scale (models/ELO.md) through the levels measured in it (random 0 and the
levels' calibrated Elo, linear between them), and each dial opponent's
Elo is compared with its target. Prints one line per target:

    RULES TARGET ESTIMATE LOW HIGH error ESTIMATE-TARGET

Usage: scripts/dial-check.py [--sawah BIN] [--models DIR] [--out DIR] [--games N] [--seed S]
"""
import argparse
import json
import pathlib
import subprocess

RULE_SETS = ["ur", "senet", "sawah", "babylon", "marks-roll-only", "masters-5", "masters"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sawah", default="sawah")
    parser.add_argument("--models", default="models")
    parser.add_argument("--out", default="runs/dial-check")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=53)
    args = parser.parse_args()
    manifest = json.loads((pathlib.Path(args.models) / "manifest.json").read_text())
    for rules in RULE_SETS:
        levels = {l["level"]: l["measured"]["elo"] for l in manifest["levels"] if l["rules"] == rules}
        easy, medium, hard = levels["easy"], levels["medium"], levels["hard"]
        targets = [round(max(easy - 150, easy / 2)), round((easy + medium) / 2), round((medium + hard) / 2)]
        agents = "random,easy,medium,hard," + ",".join(f"elo={t}" for t in targets)
        out = pathlib.Path(args.out) / rules
        subprocess.run(
            [args.sawah, "tournament", "--rules", rules, "--agents", agents, "--games", str(args.games),
             "--seed", str(args.seed), "--models", args.models, "--out", str(out)],
            check=True, capture_output=True)
        rows = {row["agent"]: row for row in json.loads((out / "elo.json").read_text())["rows"]}
        pairs = sorted([(0.0, 0.0)] + [(rows[k]["elo"], levels[k]) for k in ["easy", "medium", "hard"]])

        def calibrated(x):
            if x <= pairs[0][0]:
                return pairs[0][1]
            for (a, a_cal), (b, b_cal) in zip(pairs, pairs[1:]):
                if x <= b:
                    return a_cal + (x - a) / (b - a) * (b_cal - a_cal)
            (a, a_cal), (b, b_cal) = pairs[-2], pairs[-1]
            return b_cal + (x - b) / (b - a) * (b_cal - a_cal)

        for target in targets:
            row = rows[f"elo={target}"]
            estimate = calibrated(row["elo"])
            low, high = calibrated(row["ci_low"]), calibrated(row["ci_high"])
            print(f"{rules} {target} {estimate:.0f} {low:.0f} {high:.0f} error {estimate - target:+.0f}", flush=True)


if __name__ == "__main__":
    main()
