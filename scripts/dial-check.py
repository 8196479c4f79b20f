#!/usr/bin/env python3
"""Checks the strength dial (`elo=N`) of every rule set against its target.

For each rule set, a round robin of random, easy, medium, hard and three
dial opponents (elo=T at 150 below easy, or half of easy's Elo where that
is less far, between easy and medium, and between medium and hard), 1,000
paired games per pairing. The tournament's Elo are put on the calibration
scale (models/ELO.md) through the levels measured in it, and each dial
opponent's Elo is compared with its target. Prints one line per target:

    RULES TARGET ESTIMATE LOW HIGH error ESTIMATE-TARGET

Usage: scripts/dial-check.py [--sawah BIN] [--models DIR] [--out DIR] [--games N] [--seed S] [--rules R,R]
"""
import json
import pathlib

from calibration import level_elo, options, to_scale, tournament


def main():
    args = options(__doc__.splitlines()[0], "runs/dial-check", 53)
    manifest = json.loads((pathlib.Path(args.models) / "manifest.json").read_text())
    for rules in args.rules:
        levels = level_elo(manifest, rules)
        easy, medium, hard = levels["easy"], levels["medium"], levels["hard"]
        targets = [round(max(easy - 150, easy / 2)), round((easy + medium) / 2), round((medium + hard) / 2)]
        rows = tournament(args, rules, ["random", "easy", "medium", "hard"] + [f"elo={t}" for t in targets])
        scale = to_scale(rows, levels)
        for target in targets:
            row = rows[f"elo={target}"]
            estimate, low, high = scale(row["elo"]), scale(row["ci_low"]), scale(row["ci_high"])
            print(f"{rules} {target} {estimate:.0f} {low:.0f} {high:.0f} error {estimate - target:+.0f}", flush=True)


if __name__ == "__main__":
    main()
