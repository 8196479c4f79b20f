#!/usr/bin/env bash
# Distil a race rule set's hard level from its solved table, apart from the
# network of easy and medium, and measure it against perfect play:
#   scripts/hard.sh RULES [MINUTES] [HIDDEN] [DEPTH] [GAMES] [SETTING=VALUE...]
# 1. distils a network of HIDDEN layers (default [256,128]) from
#    tables/RULES.sawah for MINUTES (default 40), or, when GAMES is given,
#    for GAMES self-play games whatever the time (a budget of work, so the
#    result does not depend on what else the machine is doing); further
#    SETTING=VALUE items are passed to `sawah train --set` after the
#    script's own (so they win), e.g. a second pass that goes on from the
#    shipped network and trains on every move's result where the choice
#    matters: choice_margin=0.001 'init="models/RULES-hard.safetensors"'
#    learning_rate=0.0001 learning_rate_end=0.00002,
# 2. exports it to models/RULES-hard.safetensors,
# 3. points the rule set's hard entry of models/manifest.json at it, with
#    DEPTH plies of search (default 2; further search options may follow,
#    as in 3:focus=2); easy and medium keep their network,
#    so their noise levels, the dial and their calibration stay as measured,
# 4. plays 20,000 paired games of hard against perfect play (seed 8): its
#    score, and its Elo on the rule set's scale (perfect's Elo plus the
#    difference; the other levels keep theirs), after 1,000 games (seed
#    2026) whose review by the table gives hard's loss per move (the
#    tighter measure, so it comes first).
# A separate network, because the levels' noise is calibrated on the small
# one: retraining it would move easy, medium and the dial with it.
# Needs: cargo (or SAWAH_BIN), python3, tables/RULES.sawah. Run from the repository root.
set -euo pipefail
rules="${1:?usage: scripts/hard.sh RULES [MINUTES] [HIDDEN] [DEPTH] [GAMES]}"
minutes="${2:-40}"
hidden="${3:-[256,128]}"
depth="${4:-2}"
games="${5:-0}"
extra=()
for item in "${@:6}"; do extra+=(--set "$item"); done
if [[ "$games" != 0 ]]; then minutes=0; fi
table="tables/$rules.sawah"
[[ -f "$table" ]] || { echo "no $table: solve it first (sawah solve --rules $rules --out $table)" >&2; exit 1; }
sawah() {
  if [[ -n "${SAWAH_BIN:-}" ]]; then "$SAWAH_BIN" "$@"; else cargo run --quiet --release --bin sawah -- "$@"; fi
}

run="runs/hard-$rules-$(date +%Y%m%d-%H%M%S)"
sawah train --rules "$rules" --out "$run" --set mode=distill --set "hidden=$hidden" \
  --set "minutes=$minutes" --set "games=$games" --set learning_rate_end=0.00003 --set heuristic_learning_rate=0 \
  --set eval_every=2000000 --set eval_games=2000 --set seed=31 --set "table=\"$table\"" "${extra[@]}"
sawah export "$run" --out "models/$rules-hard.safetensors"

python3 - "$rules" "$depth" <<'PY'
import hashlib, json, sys
rules, depth = sys.argv[1:3]
path = "models/manifest.json"
manifest = json.load(open(path))
model = f"{rules}-hard.safetensors"
entry = json.load(open(f"models/{model}.json"))
sha = hashlib.sha256(open(f"models/{model}", "rb").read()).hexdigest()
hard = next(l for l in manifest["levels"] if l["rules"] == rules and l["level"] == "hard")
hard.update({"spec": f"neural:model={model}:depth={depth}", "model": model, "sha256": sha,
             "encoder": entry["encoder"], "measured": {}})
json.dump(manifest, open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
rm -f "models/$rules-hard.safetensors.json"

sawah tournament --rules "$rules" --agents hard,perfect --games 1000 --seed 2026 --table "$table" \
  --out "$run-against-perfect"
sawah review "$run-against-perfect/results.jsonl" --all --table "$table"
# The match as a tournament (the same dice as `sawah match hard perfect
# --games 20000 --seed 8`), so a slow one that was stopped resumes when
# this line is run again.
sawah tournament --rules "$rules" --agents hard,perfect --games 20000 --seed 8 --table "$table" \
  --out "$run-match"
echo "Copy the match and hard's loss per move into models/ELO.md and hard's \"measured\" entry."
