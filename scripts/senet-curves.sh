#!/usr/bin/env bash
# Senet's learning curves: self-play runs that differ in one thing, each
# with the same budget of games (so the comparison does not depend on what
# else the machine is doing), evaluated against one fixed opponent every
# EVERY games, then drawn on one chart:
#   scripts/senet-curves.sh NAME GAMES EVERY VARIANT...
# where each VARIANT is LABEL=SETTINGS, SETTINGS being `--set` items
# separated by spaces (empty for the defaults), for example
#   scripts/senet-curves.sh inputs 1500000 150000 \
#     'one-hot=' 'features=encoder=senet-features-v1'
#   scripts/senet-curves.sh endgame 4000000 250000 \
#     'features=encoder=senet-features-v1' \
#     'features+endgame=encoder=senet-features-v1 endgame="tables/senet-endgame-3.sawah"'
# Runs go to runs/senet-NAME-LABEL (a run already there is resumed), the
# chart to docs/senet-NAME.svg, and the tables to runs/senet-NAME.md.
# Every run: 128-64 hidden, seed 1, learning rate 0.001 falling to 0.0002,
# the opponent OPPONENT (default expectiminimax:depth=1), 2,000 paired
# games per evaluation. The runs are played one after the other.
# Needs: cargo (or SAWAH_BIN). Run from the repository root.
set -euo pipefail
name="${1:?usage: scripts/senet-curves.sh NAME GAMES EVERY LABEL=SETTINGS...}"
games="${2:?games per run}"
every="${3:?games between evaluations}"
shift 3
[[ $# -ge 1 ]] || { echo "give at least one LABEL=SETTINGS variant" >&2; exit 1; }
opponent="${OPPONENT:-expectiminimax:depth=1}"
sawah() {
  if [[ -n "${SAWAH_BIN:-}" ]]; then "$SAWAH_BIN" "$@"; else cargo run --quiet --release --bin sawah -- "$@"; fi
}

runs=()
labels=()
for variant in "$@"; do
  label="${variant%%=*}"
  settings="${variant#*=}"
  run="runs/senet-$name-$label"
  runs+=("$run")
  labels+=(--label "$label")
  if [[ -f "$run/config.json" ]]; then
    sawah train --resume "$run"
    continue
  fi
  sets=()
  for item in $settings; do sets+=(--set "$item"); done
  sawah train --rules senet --out "$run" --seed 1 --set hidden=[128,64] --set minutes=0 \
    --set "games=$games" --set learning_rate_end=0.0002 --set "eval_every=$every" \
    --set eval_games=2000 --set "eval_opponents=[\"$opponent\"]" "${sets[@]}"
done
sawah curve "${runs[@]}" "${labels[@]}" --opponent "$opponent" \
  --title "Senet: $name, Elo against $opponent by training games (95% intervals)" \
  --out "docs/senet-$name.svg" | tee "runs/senet-$name.md"
