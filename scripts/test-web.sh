#!/usr/bin/env bash
# Runs the WebAssembly tests of shardlab: the browser/Node fabric end to end,
# in Node (worker_threads) and in headless Chromium (dedicated workers).
# Installs what is missing first (see setup-web.sh). With --bench, also
# measures the fabric in a release build (numbers in docs/web.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
bash scripts/setup-web.sh

target=wasm32-unknown-unknown
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step "cargo clippy --target $target (warnings are errors)"
cargo clippy --target "$target" --all-targets --quiet -- -D warnings

# Node runs the ES-module glue (the device workers import it); Chromium runs
# the test itself in a dedicated worker, where Atomics.wait is allowed.
step "wasm tests in Node"
WASM_BINDGEN_USE_NODE_EXPERIMENTAL=1 \
  cargo test --target "$target" --test web_fabric --test web_program 2>&1 | tee -a "$log"

step "wasm tests in headless Chromium"
WASM_BINDGEN_USE_DEDICATED_WORKER=1 \
  cargo test --target "$target" --test web_fabric --test web_program 2>&1 | tee -a "$log"

if [ "${1:-}" = "--bench" ]; then
  for mode in WASM_BINDGEN_USE_NODE_EXPERIMENTAL WASM_BINDGEN_USE_DEDICATED_WORKER; do
    step "fabric measurements ($mode, release)"
    env "$mode=1" cargo test --release --target "$target" --test web_bench -- --nocapture 2>&1 \
      | grep -E 'fabric:|test result' | tee -a "$log"
  done
fi

awk '/^test result:/ { p += $4; f += $6 } END { printf "web tests: %d passed, %d failed\n", p, f }' "$log"
