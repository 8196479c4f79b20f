#!/usr/bin/env python3
"""Measures the strength dial of every rule set and writes it into the manifest.

For each rule set, a round robin of random, the levels and the rule set's
network at noise 0.32, 0.16, 0.08, 0.01 and 0 (1,000 paired games per
pairing). Each noise level's Elo is put on the calibration scale
(models/ELO.md) through the levels measured in the same tournament; easy's
and medium's own noise keep their calibrated Elo. The points are written
into models/manifest.json as the rule set's "dial" (hard is not a point: it
may search deeper; the dial hands over to it at the top).

Usage: scripts/dial-measure.py [--sawah BIN] [--models DIR] [--out DIR] [--games N] [--seed S] [--rules R,R]
"""
import json
import pathlib
import re

from calibration import level_elo, options, to_scale, tournament

NOISES = [0.32, 0.16, 0.08, 0.01, 0.0]


def noise_of(spec):
    found = re.search(r"noise=([0-9.]+)", spec)
    return float(found.group(1)) if found else 0.0


def main():
    args = options(__doc__.splitlines()[0], "runs/dial", 41)
    path = pathlib.Path(args.models) / "manifest.json"
    manifest = json.loads(path.read_text())
    dials = []
    for rules in args.rules:
        levels = {l["level"]: l for l in manifest["levels"] if l["rules"] == rules}
        # The network easy and medium add their noise to (hard may play another).
        model = levels["easy"]["model"]
        base = f"neural:model={model}"
        noisy = [f"{base}:noise={n}" if n else base for n in NOISES]
        rows = tournament(args, rules, ["random", "easy", "medium", "hard"] + noisy)
        elo = level_elo(manifest, rules)
        scale = to_scale(rows, elo)
        points = [{"noise": noise_of(levels[k]["spec"]), "elo": round(elo[k], 1)} for k in ["easy", "medium"]]
        points += [{"noise": noise_of(agent), "elo": round(scale(rows[agent]["elo"]), 1)} for agent in noisy]
        points.sort(key=lambda p: p["noise"])
        dials.append({"rules": rules, "model": model, "spec": base, "points": points})
        print(rules, ", ".join(f"{p['noise']}: {p['elo']:.0f}" for p in points), flush=True)
    # Rule sets not measured this time keep their dial.
    measured = {d["rules"] for d in dials}
    manifest["dial"] = [d for d in manifest["dial"] if d["rules"] not in measured] + dials
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(manifest, indent=2) + "\n")
    temporary.replace(path)


if __name__ == "__main__":
    main()
