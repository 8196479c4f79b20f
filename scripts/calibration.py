"""Shared by the dial scripts: their options, running a tournament, and
putting a tournament's Elo on the calibration scale of models/ELO.md."""
import argparse
import json
import pathlib
import subprocess

RULE_SETS = ["ur", "senet", "sawah", "babylon", "marks-roll-only", "masters-5", "masters",
             "blitz", "aseb", "masters-3dice"]


def options(description, out, seed):
    """The common command-line options: the binary, models, output, games, seed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--sawah", default="sawah")
    parser.add_argument("--models", default="models")
    parser.add_argument("--out", default=out)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--rules", default=",".join(RULE_SETS),
                        help="the rule sets, comma-separated (default: every one)")
    args = parser.parse_args()
    args.rules = args.rules.split(",")
    return args


def tournament(args, rules, agents):
    """Runs a round robin of `agents` and returns its Elo table's rows by agent."""
    out = pathlib.Path(args.out) / rules
    subprocess.run(
        [args.sawah, "tournament", "--rules", rules, "--agents", ",".join(agents), "--games",
         str(args.games), "--seed", str(args.seed), "--models", args.models, "--out", str(out)],
        check=True, capture_output=True)
    return {row["agent"]: row for row in json.loads((out / "elo.json").read_text())["rows"]}


def to_scale(rows, calibrated_elo):
    """A function from the tournament's Elo to the calibration scale: linear
    through random (0) and each level's (tournament Elo, calibrated Elo),
    extended beyond the last level along its segment."""
    pairs = sorted([(0.0, 0.0)] + [(rows[k]["elo"], elo) for k, elo in calibrated_elo.items()])

    def scale(x):
        if x <= pairs[0][0]:
            return pairs[0][1]
        for (a, a_cal), (b, b_cal) in zip(pairs, pairs[1:]):
            if x <= b:
                return a_cal + (x - a) / (b - a) * (b_cal - a_cal)
        (a, a_cal), (b, b_cal) = pairs[-2], pairs[-1]
        return b_cal + (x - b) / (b - a) * (b_cal - a_cal)

    return scale


def level_elo(manifest, rules):
    """The calibrated Elo of the rule set's levels."""
    return {l["level"]: l["measured"]["elo"] for l in manifest["levels"] if l["rules"] == rules}
