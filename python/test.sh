#!/usr/bin/env bash
# Builds the Python package's wheel, installs it into a virtual environment
# and runs its tests:
#
#   python/test.sh
#
# The environment lives in $SAWAH_VENV (default ~/.cache/sawah-ai/venv) and
# build products in $CARGO_TARGET_DIR, so later runs start warm. The tests
# that compare answers with the command line use $SAWAH_BIN when it is set
# (.ci/run sets it to the binary `cargo test` built) and are skipped
# without it.
set -euo pipefail
cd "$(dirname "$0")"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sawah-ai/target}"
venv="${SAWAH_VENV:-$HOME/.cache/sawah-ai/venv}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-test.txt

echo "== cargo fmt --check and clippy (python/)"
cargo fmt -- --check
cargo clippy --locked -- -D warnings

echo "== the wheel"
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT
# SAWAH_WHEEL_PROFILE picks the cargo profile (default release; .ci/run
# uses "tests", see python/Cargo.toml).
"$venv/bin/maturin" build --profile "${SAWAH_WHEEL_PROFILE:-release}" --locked --quiet --interpreter "$venv/bin/python" --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/*.whl

echo "== pytest"
# Run from outside the source folder, so that the installed wheel is tested.
(cd "$wheels" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$OLDPWD/tests")
