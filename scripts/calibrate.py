#!/usr/bin/env python3
"""Calibrates one race rule set's shipped levels and dial from scratch and
writes them into models/manifest.json (measured entries, anchors, dial).

The rule set needs its easy, medium and hard entries in the manifest and
its solved table in tables/RULES.sawah. Three measures, each a command the
project documents (models/ELO.md), each skipped when its folder exists:

1. the calibration round robin (RUN/calibration): random, easy, medium,
   hard, perfect play and the small network at noise 0.32, 0.16, 0.08, 0.01
   and 0, paired dice, GAMES per pairing, seed 2026: every Elo on the rule
   set's scale (random = 0), the dial's points, and each agent's loss per
   move by the solved table;
2. hard against perfect play, 20,000 paired games (seed 8; `sawah match`,
   output in RUN/hard-vs-perfect.txt): hard's Elo is perfect play's plus
   that difference, as for every race rule set;
3. the reference scale (RUN/reference): random, easy, medium and hard, 100
   games per pairing (seed 31), reviewed without the table: each level's
   loss per move by the review's reference (hard one ply deeper), the scale
   of reviews where no table is at hand.

Usage: scripts/calibrate.py RULES [--sawah BIN] [--models DIR] [--games N] [--run DIR]
"""
import argparse
import datetime
import json
import pathlib
import re
import subprocess

NOISES = [0.32, 0.16, 0.08, 0.01, 0.0]


def run(args, *command, out=None):
    """Runs `sawah COMMAND` and returns its standard output (also written to `out`)."""
    done = subprocess.run([args.sawah, *command], check=True, capture_output=True, text=True)
    if out is not None:
        pathlib.Path(out).write_text(done.stdout)
    return done.stdout


def level_entries(manifest, rules):
    return {l["level"]: l for l in manifest["levels"] if l["rules"] == rules}


def calibration(args, rules, table, small):
    """The round robin's rows by agent (spec as given)."""
    folder = args.run / "calibration"
    # The model by its path: a spec's model= is a file (a level's is found
    # through the manifest).
    model = pathlib.Path(args.models) / small
    noisy = [f"neural:model={model}:noise={n}" if n else f"neural:model={model}" for n in NOISES]
    agents = ["random", "easy", "medium", "hard", "perfect"] + noisy
    if not folder.exists():
        run(args, "tournament", "--rules", rules, "--agents", ",".join(agents), "--games",
            str(args.games), "--seed", "2026", "--table", table, "--models", args.models,
            "--out", str(folder))
    rows = json.loads((folder / "elo.json").read_text())["rows"]
    return {row["agent"]: row for row in rows}, noisy


def by_name(by_agent, name):
    """The entry of a level or agent (a table row, a review total),
    whichever way the table names it."""
    for agent, entry in by_agent.items():
        if agent == name or agent.startswith(f"{name} ") or agent.startswith(f"{name}="):
            return entry
    raise KeyError(f"no entry for {name} among {sorted(by_agent)}")


def hard_against_perfect(args, rules, table):
    """Score, its interval and the Elo difference over 20,000 paired games."""
    path = args.run / "hard-vs-perfect.txt"
    if not path.exists():
        run(args, "match", "hard", "perfect", "--rules", rules, "--table", table, "--games",
            "20000", "--seed", "8", "--models", args.models, out=path)
    text = path.read_text()
    score = re.search(r"score ([0-9.]+) \(95% CI ([0-9.]+) to ([0-9.]+)\), Elo difference ([-+0-9]+) \(([-+0-9]+) to ([-+0-9]+)\)", text)
    s, low, high, diff, dlow, dhigh = score.groups()
    return float(s), float(low), float(high), int(diff), int(dlow), int(dhigh)


def reference_losses(args, rules):
    """Each level's mean loss per move by the review's reference (no table)."""
    folder = args.run / "reference"
    if not folder.exists():
        run(args, "tournament", "--rules", rules, "--agents", "random,easy,medium,hard",
            "--games", "100", "--seed", "31", "--models", args.models, "--out", str(folder))
    path = args.run / "reference-review.json"
    if not path.exists():
        run(args, "review", str(folder / "results.jsonl"), "--all", "--format", "json",
            "--models", args.models, out=path)
    totals = json.loads(path.read_text())
    return {t["agent"]: t["mean_loss_pp"] / 100 for t in totals}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("--sawah", default="sawah")
    parser.add_argument("--models", default="models")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--run", type=pathlib.Path)
    args = parser.parse_args()
    rules = args.rules
    args.run = args.run or pathlib.Path("runs") / f"calibrate-{rules}"
    args.run.mkdir(parents=True, exist_ok=True)
    table = f"tables/{rules}.sawah"
    path = pathlib.Path(args.models) / "manifest.json"
    manifest = json.loads(path.read_text())
    levels = level_entries(manifest, rules)
    small = levels["easy"]["model"]

    rows, noisy = calibration(args, rules, table, small)
    perfect = by_name(rows, "perfect")
    score, low, high, diff, dlow, dhigh = hard_against_perfect(args, rules, table)
    by_reference = reference_losses(args, rules)
    date = datetime.date.today().isoformat()
    for level in ["easy", "medium", "hard"]:
        row = by_name(rows, level)
        measured = {
            "elo": round(row["elo"]),
            "elo_ci": [round(row["ci_low"]), round(row["ci_high"])],
            "loss_per_move": round(row["loss_per_move_pp"] / 100, 7),
            "loss_per_move_by_reference": round(by_name(by_reference, level), 7),
            "table": f"models/ELO.md#{rules}",
            "date": date,
            "note": (f"Elo and loss per move: calibration round robin with perfect play, {args.games:,} paired "
                     f"games per pairing (seed 2026, scripts/calibrate.py); loss per move by reference: "
                     f"review of 100 games per pairing (seed 31)"),
        }
        if level == "hard":
            measured.update({
                "elo": round(perfect["elo"] + diff),
                "elo_ci": [round(perfect["elo"] + dlow), round(perfect["elo"] + dhigh)],
                "score_vs_perfect": score,
                "score_vs_perfect_ci": [low, high],
                "note": measured["note"] + ("; hard's Elo: perfect play's in the round robin plus hard's "
                                            "difference against perfect play over 20,000 paired games (seed 8)"),
            })
        levels[level]["measured"] = measured
    manifest["anchors"] = [a for a in manifest["anchors"] if a["rules"] != rules] + [
        {"rules": rules, "agent": "random", "elo": 0,
         "loss_per_move": round(by_name(rows, "random")["loss_per_move_pp"] / 100, 6),
         "loss_per_move_by_reference": round(by_name(by_reference, "random"), 6)},
        {"rules": rules, "agent": "perfect", "elo": round(perfect["elo"]), "loss_per_move": 0},
    ]
    points = [{"noise": n, "elo": round(rows[agent]["elo"], 1)} for n, agent in zip(NOISES, noisy)]
    # Easy's and medium's noise are points of the dial too, at their Elo.
    for level in ["easy", "medium"]:
        noise = float(re.search(r"noise=([0-9.]+)", levels[level]["spec"]).group(1))
        # The level's Elo as the manifest gives it, so the dial plays the
        # level's own noise at the level's Elo.
        points.append({"noise": noise, "elo": float(levels[level]["measured"]["elo"])})
    points.sort(key=lambda p: p["noise"])
    dial = {"rules": rules, "model": small, "spec": f"neural:model={small}", "points": points}
    manifest["dial"] = [d for d in manifest["dial"] if d["rules"] != rules] + [dial]
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(manifest, indent=2) + "\n")
    temporary.replace(path)
    print(f"| {rules} | " + " | ".join(str(levels[l]["measured"]["elo"]) for l in ["easy", "medium", "hard"])
          + f" | {round(perfect['elo'])} | hard against perfect {score:.4f} ({low:.4f} to {high:.4f}) |")
    print("dial:", ", ".join(f"{p['noise']}: {p['elo']:.0f}" for p in points))


if __name__ == "__main__":
    main()
