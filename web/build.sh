#!/usr/bin/env bash
# Builds the npm package `sawah-ai` into web/dist from the repository:
#   web/build.sh          the package folder web/dist (what the tests and the demo use)
#   web/build.sh --pack   and the tarball web/sawah-ai-VERSION.tgz (npm pack)
#
# Needs the wasm32-unknown-unknown target and wasm-bindgen-cli at the version
# of the wasm-bindgen crate in Cargo.lock; both are installed here if missing
# (wasm-bindgen-cli with cargo, into ~/.cache/sawah-ai/tools: nothing is
# downloaded from outside the package registries). The output depends only
# on the sources: the same commit gives the same files.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir="${CARGO_TARGET_DIR:-target}"
tools="${SAWAH_TOOLS:-$HOME/.cache/sawah-ai/tools}"
dist=web/dist

rustup target list --installed | grep -q '^wasm32-unknown-unknown' || rustup target add wasm32-unknown-unknown

bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
bindgen="$tools/bin/wasm-bindgen"
if ! "$bindgen" --version 2>/dev/null | grep -qF "$bindgen_version"; then
  echo "== installing wasm-bindgen-cli $bindgen_version into $tools"
  # Unoptimised: it compiles in a third of the time, and turning our one
  # module into JavaScript bindings still takes about a second.
  cargo install --debug wasm-bindgen-cli --version "=$bindgen_version" --root "$tools"
fi

echo "== building sawah-wasm for wasm32-unknown-unknown"
cargo build --locked --profile wasm --target wasm32-unknown-unknown -p sawah-wasm

rm -rf "$dist"
mkdir -p "$dist/wasm" "$dist/models"
"$bindgen" --target web --no-typescript --out-dir "$dist/wasm" \
  "$target_dir/wasm32-unknown-unknown/wasm/sawah_wasm.wasm"
cp web/js/index.js web/js/index.d.ts web/js/protocol.d.ts web/js/worker.js web/README.md "$dist/"
cp models/manifest.json models/*.safetensors models/*.puzzles.jsonl "$dist/models/"
version=$(awk -F'"' '/^\[workspace.package\]/ { s = 1 } s && /^version/ { print $2; exit }' Cargo.toml)
node web/scripts/package-json.mjs "$version" > "$dist/package.json"
echo "== web/dist: sawah-ai $version"
ls -l "$dist" "$dist/wasm"

if [ "${1:-}" = "--pack" ]; then
  (cd "$dist" && npm pack --pack-destination .. >/dev/null)
  echo "== web/sawah-ai-$version.tgz"
fi
