#!/usr/bin/env bash
# Remakes one rule set's shipped levels in models/ (its entries replaced,
# the other rule sets' kept), with every stage `sawah levels build` runs
# (docs/training.md, "Levels for any rule set"):
#   scripts/levels.sh RULES [SEED]
# The work folder (the solved table, each stage's record) is
# models.work/RULES; rerun the same line to go on after an interruption.
# SAWAH_BIN=PATH runs a built binary instead of `cargo run --release`.
set -euo pipefail
rules="${1:?usage: scripts/levels.sh RULES [SEED]}"
seed="${2:-1}"
if [[ -n "${SAWAH_BIN:-}" ]]; then
  exec "$SAWAH_BIN" levels build --rules "$rules" --out models --seed "$seed"
fi
exec cargo run --quiet --release --bin sawah -- levels build --rules "$rules" --out models --seed "$seed"
