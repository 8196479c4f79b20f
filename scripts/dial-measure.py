#!/usr/bin/env python3
"""Measures the strength dial of every rule set and writes it into the manifest.

For each rule set, a round robin of random, the levels and the rule set's
network at noise 0.32, 0.16, 0.08, 0.01 and 0 (1,000 paired games per
pairing). Each noise level's Elo is put on the calibration scale
(models/ELO.md) through the levels measured in the same tournament (random
0 and the levels' calibrated Elo, linear between them); easy's and
medium's own noise keep their calibrated Elo. The points are written into
models/manifest.json as the rule set's "dial" (hard is not a point: it may
search deeper; the dial hands over to it at the top).

Usage: scripts/dial-measure.py [--sawah BIN] [--models DIR] [--out DIR] [--games N] [--seed S]
"""
import argparse
import json
import pathlib
import re
import subprocess

RULE_SETS = ["ur", "senet", "sawah", "babylon", "marks-roll-only", "masters-5", "masters"]
NOISES = [0.32, 0.16, 0.08, 0.01]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sawah", default="sawah")
    parser.add_argument("--models", default="models")
    parser.add_argument("--out", default="runs/dial")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    path = pathlib.Path(args.models) / "manifest.json"
    manifest = json.loads(path.read_text())
    dials = []
    for rules in RULE_SETS:
        levels = {l["level"]: l for l in manifest["levels"] if l["rules"] == rules}
        model = levels["hard"]["model"]
        base = f"neural:model={model}"
        agents = ",".join(["random"] + [f"{base}:noise={n}" for n in NOISES[:3]] + ["easy", "medium"]
                          + [f"{base}:noise={NOISES[3]}", base, "hard"])
        out = pathlib.Path(args.out) / rules
        subprocess.run(
            [args.sawah, "tournament", "--rules", rules, "--agents", agents, "--games", str(args.games),
             "--seed", str(args.seed), "--models", args.models, "--out", str(out)],
            check=True, capture_output=True)
        rows = {row["agent"]: row["elo"] for row in json.loads((out / "elo.json").read_text())["rows"]}
        elo = {k: levels[k]["measured"]["elo"] for k in ["easy", "medium", "hard"]}
        pairs = sorted([(0.0, 0.0)] + [(rows[k], elo[k]) for k in elo])

        def calibrated(x):
            if x <= pairs[0][0]:
                return pairs[0][1]
            for (a, a_cal), (b, b_cal) in zip(pairs, pairs[1:]):
                if x <= b:
                    return a_cal + (x - a) / (b - a) * (b_cal - a_cal)
            (a, a_cal), (b, b_cal) = pairs[-2], pairs[-1]
            return b_cal + (x - b) / (b - a) * (b_cal - a_cal)

        points = []
        for agent, value in rows.items():
            if agent in ("random", "hard"):
                continue
            if agent in ("easy", "medium"):
                noise = float(re.search(r"noise=([0-9.]+)", levels[agent]["spec"]).group(1))
                points.append({"noise": noise, "elo": round(elo[agent], 1)})
            else:
                found = re.search(r"noise=([0-9.]+)", agent)
                points.append({"noise": float(found.group(1)) if found else 0.0, "elo": round(calibrated(value), 1)})
        points.sort(key=lambda p: p["noise"])
        dials.append({"rules": rules, "model": model, "spec": base, "points": points})
        print(rules, ", ".join(f"{p['noise']}: {p['elo']:.0f}" for p in points), flush=True)
    manifest["dial"] = dials
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(manifest, indent=2) + "\n")
    temporary.replace(path)


if __name__ == "__main__":
    main()
