#!/usr/bin/env bash
# The tests beyond `cargo test --workspace`: the cluster recipe on a
# single-node Slurm, the browser package (Node and headless Chromium) and
# the Python package. Run after `cargo test --workspace`, whose `sawah`
# binary the Slurm and Python tests use (scripts/test.sh runs both; so
# does CI, .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sawah-ai/target}"

echo "== the cluster recipe on a single-node Slurm (scripts/slurm-test.sh)"
# Installs Debian's slurm-wlm and munge when missing (as root); skipped,
# saying so, where neither is possible.
if command -v slurmctld >/dev/null 2>&1 || [ "$(id -u)" = 0 ]; then
  scripts/slurm-test.sh "${SAWAH_BIN:-$CARGO_TARGET_DIR/debug/sawah}"
else
  echo "skipped: no Slurm here and not root to install it (apt-get install slurm-wlm munge)"
fi

echo "== the browser package (web/build.sh --pack, then npm test in web/)"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "the browser tests need Debian's chromium: apt-get install chromium" >&2
    exit 1
  fi
fi
web/build.sh --pack
(cd web && npm ci --no-audit --no-fund && npm test)

echo "== the Python package (python/test.sh)"
# The wheel the tests install is built with the "tests" profile (optimised,
# without link-time optimisation); answers compared with the command line
# use the binary cargo test built.
SAWAH_WHEEL_PROFILE="${SAWAH_WHEEL_PROFILE:-tests}" \
  SAWAH_BIN="${SAWAH_BIN:-$CARGO_TARGET_DIR/debug/sawah}" python/test.sh
