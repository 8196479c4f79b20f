#!/usr/bin/env bash
# Every test of the project: the Rust workspace, the cluster recipe on a
# single-node Slurm, the browser package (Node and headless Chromium) and
# the Python package. What CI runs after its
# format and lint checks (.ci/run):
#
#   scripts/test.sh
#
# Build products go to $CARGO_TARGET_DIR (default ~/.cache/sawah-ai/target),
# tools and the Python environment to ~/.cache/sawah-ai, so a second run
# starts warm. Needs Node 20 with npm, Python 3.10+ and Debian's chromium
# (installed with apt-get when missing and this runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sawah-ai/target}"

echo "== tests (cargo test --workspace)"
cargo test --workspace --locked

scripts/test-front-doors.sh
