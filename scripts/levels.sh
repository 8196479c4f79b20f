#!/usr/bin/env bash
# Retrain and recalibrate one rule set's three levels from scratch:
#   scripts/levels.sh RULES [MINUTES] [EASY_NOISE] [MEDIUM_NOISE]
# 1. trains a network (RULES, MINUTES, default 55): distilled from the solved
#    table when tables/RULES.sawah exists (the way to come within 20 Elo of
#    perfect play), else by self-play TD(lambda),
# 2. exports it to models/RULES.safetensors,
# 3. writes the rule set's easy/medium/hard entries into models/manifest.json
#    (hard: the network with depth-1 search; medium and easy: the network
#    with evaluation noise MEDIUM_NOISE and EASY_NOISE, defaults 0.02, 0.04),
# 4. plays the calibration tournament (with perfect play when
#    tables/RULES.sawah exists) into a new folder (RUN-tournament: a folder
#    of an earlier tournament would be resumed, and the agents' names do not
#    change with the model) and prints its Elo table for models/ELO.md.
# HARD_DEPTH=N sets hard's search depth in plies (default 1; masters ships 2).
# Needs: cargo (or SAWAH_BIN), python3 (for the manifest edit). Run from the repository root.
set -euo pipefail
rules="${1:?usage: scripts/levels.sh RULES [MINUTES] [EASY_NOISE] [MEDIUM_NOISE]}"
minutes="${2:-55}"
easy="${3:-0.04}"
medium="${4:-0.02}"
# SAWAH_BIN=PATH runs a built binary instead (so the tree can change meanwhile).
sawah() {
  if [[ -n "${SAWAH_BIN:-}" ]]; then "$SAWAH_BIN" "$@"; else cargo run --quiet --release --bin sawah -- "$@"; fi
}

run="runs/levels-$rules-$(date +%Y%m%d-%H%M%S)"
table_setting=()
agents="random,easy,medium,hard"
table_args=()
if [[ -f "tables/$rules.sawah" ]]; then
  table_setting=(--set mode=distill --set "table=\"tables/$rules.sawah\"")
  agents="$agents,perfect"
  table_args=(--table "tables/$rules.sawah")
fi
sawah train --rules "$rules" --out "$run" --set hidden=[128,64] --set "minutes=$minutes" \
  --set learning_rate_end=0.0001 "${table_setting[@]}"
sawah export "$run" --out "models/$rules.safetensors"

python3 - "$rules" "$easy" "$medium" "${HARD_DEPTH:-1}" <<'PY'
import hashlib, json, sys
rules, easy, medium, depth = sys.argv[1:5]
path = "models/manifest.json"
try:
    manifest = json.load(open(path))
except FileNotFoundError:
    manifest = {"format": "sawah-models", "format_version": 1, "levels": []}
model = f"{rules}.safetensors"
entry = json.load(open(f"models/{model}.json"))
sha = hashlib.sha256(open(f"models/{model}", "rb").read()).hexdigest()
# The rule set's entries are replaced where they were (appended if new).
levels = manifest["levels"]
at = next((n for n, l in enumerate(levels) if l["rules"] == rules), len(levels))
fresh = [{"rules": rules, "level": level, "spec": spec, "model": model,
          "sha256": sha, "encoder": entry["encoder"], "measured": {}}
         for level, spec in [("easy", f"neural:model={model}:noise={easy}"),
                             ("medium", f"neural:model={model}:noise={medium}"),
                             ("hard", f"neural:model={model}:depth={depth}")]]
others = [l for l in levels if l["rules"] != rules]
manifest["levels"] = others[:at] + fresh + others[at:]
json.dump(manifest, open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
rm -f "models/$rules.safetensors.json"

sawah tournament --rules "$rules" --agents "$agents" --games 1000 --seed 2026 \
  "${table_args[@]}" --out "$run-tournament"
echo "Copy the table above into models/ELO.md, its figures into the manifest's \"measured\" entries, and the random and perfect rows' Elo and loss per move into its \"anchors\" (the strength scale of reviews)."
