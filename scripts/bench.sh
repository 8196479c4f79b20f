#!/usr/bin/env bash
# Re-measures every headline figure of docs/BENCHMARKS.md that takes
# minutes, in one command, and prints each with the command that made it:
#
#   scripts/bench.sh            the figures as the table has them
#   scripts/bench.sh --quick    every step with small counts (a check that
#                               the script runs; not figures to record)
#
# Steps: random playouts, Star2 against plain expectiminimax, neural
# evaluations, `choose` latency of every level of every rule set, the
# browser package (size, and latency in Chromium and Node against native;
# skipped with a note when Node, Chromium or the wasm tools are missing),
# and the HTTP server (each level's rate over HTTP against in process, then
# hard at half its rate). The solve and strength figures take an hour and
# more; the script prints the commands that measure them instead.
#
# Run it on an idle machine: every figure is a time. The release binary is
# built first (CARGO_TARGET_DIR is honoured).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
if (( quick )); then
  seconds=1; positions=50; search_positions=20; web_positions=20; load_seconds=2
else
  seconds=5; positions=1000; search_positions=200; web_positions=300; load_seconds=10
fi

target_dir="${CARGO_TARGET_DIR:-target}"
cargo build --locked --release -p sawah-cli >&2
sawah="$target_dir/release/sawah"
rules=sawah,ur,babylon,marks-roll-only,masters,masters-5,senet

step() {
  printf '\n## %s\n\n$ %s\n' "$1" "${*:2}"
  "${@:2}"
}

echo "# Headline figures, $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)"
step "random playouts, one thread" "$sawah" bench --rules sawah,ur,senet --seconds "$seconds"
step "Star2 against plain expectiminimax, depth 3" "$sawah" bench-search --depth 3 --positions "$search_positions"
step "neural evaluations, batch 1, one thread" "$sawah" bench-neural --rules ur,senet --seconds "$seconds"
step "choose latency, one thread, every level" "$sawah" bench-choose --rules "$rules" --agents easy,medium,hard --positions "$positions"

printf '\n## browser package: size and choose latency\n\n'
if command -v node >/dev/null && { [[ -x "${CHROMIUM:-/usr/bin/chromium}" ]] || command -v chromium >/dev/null; } \
  && [[ -d web/node_modules/playwright-core ]]; then
  echo "$ web/build.sh --pack && SAWAH_BIN=$sawah node web/scripts/bench.mjs $web_positions"
  web/build.sh --pack >&2
  SAWAH_BIN="$sawah" node web/scripts/bench.mjs "$web_positions"
else
  echo "skipped: needs node, chromium and web/node_modules (cd web && npm ci)"
fi

printf '\n## HTTP server: each level over HTTP against in process, then hard at half its rate\n\n'
port=$((20000 + RANDOM % 20000))
"$sawah" serve --addr "127.0.0.1:$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
for level in easy medium hard; do
  echo "\$ sawah loadtest http://127.0.0.1:$port --rules ur --bot $level --concurrency 8 --seconds $load_seconds --compare 2"
  "$sawah" loadtest "http://127.0.0.1:$port" --rules ur --bot "$level" --concurrency 8 \
    --seconds "$load_seconds" --compare 2
done
echo "\$ sawah loadtest http://127.0.0.1:$port --rules ur --bot hard --concurrency 64 --rate 330 --seconds $((load_seconds * 2))"
"$sawah" loadtest "http://127.0.0.1:$port" --rules ur --bot hard --concurrency 64 --rate 330 \
  --seconds $((load_seconds * 2))
kill "$server" 2>/dev/null || true

cat <<'EOF'

## Measured by their own commands (an hour and more each)

exact solves:         /usr/bin/time -v sawah solve --rules R --out tables/R.sawah
Senet endgames:       /usr/bin/time -v sawah solve --rules senet --pieces 3 --out tables/senet-endgame-3.sawah
hard against perfect: sawah match hard perfect --rules R --table tables/R.sawah --games 1000 --luck-adjusted
levels' Elo:          sawah tournament --rules R --agents random,easy,medium,hard,perfect --games 1000 --table tables/R.sawah --luck-adjusted --out runs/R
server under attack:  cargo test --release -p sawah-server --test attacks -- --nocapture --test-threads=1
outside bots:         sawah tournament --rules ur --agents pipe-random,pipe-random2 --games 4000 --bots B (docs/benchmarks-log.md, "Outside bots")
Python:               python python/benchmarks/steps.py --rules ur
EOF
