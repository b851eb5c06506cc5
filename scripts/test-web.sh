#!/usr/bin/env bash
# Runs the WebAssembly tests of shardlab: the browser/Node fabric end to end,
# in Node (worker_threads) and in headless Chromium (dedicated workers).
# Installs what is missing first (see setup-web.sh). With --bench, also
# measures shardlab in wasm in a release build (tables in docs/benchmarks.md).
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
# `wasm-pack test --node` and `WASM_BINDGEN_USE_DEDICATED_WORKER=1 wasm-pack
# test --headless --chrome` run the same tests (README, "wasm-pack"), but
# wasm-pack first runs `cargo build --tests`, which compiles every test target
# for wasm32, the twenty native ones too (6 min 52 s from a clean target dir
# on 2 cores, 2026-11-29), where `cargo test --test` builds only these two;
# so these runs stay with cargo.
step "wasm tests in Node"
WASM_BINDGEN_USE_NODE_EXPERIMENTAL=1 \
  cargo test --target "$target" --test web_fabric --test web_program 2>&1 | tee -a "$log"

step "wasm tests in headless Chromium"
WASM_BINDGEN_USE_DEDICATED_WORKER=1 \
  cargo test --target "$target" --test web_fabric --test web_program 2>&1 | tee -a "$log"

# --bench [--quick | --focus]: the release-mode measurements of tests/web_bench.rs in
# Node and in Chromium. Their tables go to the terminal and, when
# WEB_BENCH_OUT names a folder, to node.md and chromium.md in it (for
# scripts/bench.sh --web).
if [ "${1:-}" = "--bench" ]; then
  quick=0 focus=0
  [ "${2:-}" = "--quick" ] && quick=1
  # --focus: psum, psum_scatter and all_gather at 1 and 4 MiB on 2 and 4
  # workers, against their copy limit (see tests/web_bench.rs).
  [ "${2:-}" = "--focus" ] && focus=1
  for mode in node chromium; do
    case $mode in
      node) var=WASM_BINDGEN_USE_NODE_EXPERIMENTAL ;;
      chromium) var=WASM_BINDGEN_USE_DEDICATED_WORKER ;;
    esac
    step "shardlab in wasm: measurements in $mode (release)"
    env "$var=1" SHARDLAB_BENCH_QUICK=$quick SHARDLAB_BENCH_FOCUS=$focus WASM_BINDGEN_TEST_TIMEOUT=7200 \
      cargo test --release --target "$target" --test web_bench -- --nocapture 2>&1 \
      | tee -a "$log" | grep -E '^bench\| |test result' | tee "$log.$mode"
    if [ -n "${WEB_BENCH_OUT:-}" ]; then
      sed -n 's/^bench| \{0,1\}//p' "$log.$mode" > "$WEB_BENCH_OUT/$mode.md"
    fi
    rm -f "$log.$mode"
  done
fi

awk '/^test result:/ { p += $4; f += $6 } END { printf "web tests: %d passed, %d failed\n", p, f }' "$log"
