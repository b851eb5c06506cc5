#!/usr/bin/env bash
# Runs every test of shardlab: formatting, lints, the native test suite, the
# WebAssembly tests in Node and headless Chromium, and the playground page's
# end-to-end tests in headless Chromium. Installs what is
# missing first (see setup.sh and setup-web.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --all-targets --quiet -- -D warnings

step "cargo test"
cargo test 2>&1 | tee -a "$log"

bash scripts/test-web.sh 2>&1 | tee -a "$log"

step "the playground page in headless Chromium"
bash scripts/test-page.sh 2>&1 | tee -a "$log"

bash scripts/test-npm.sh 2>&1 | tee -a "$log"

# One closing line for the whole run: cargo prints one per test binary, and
# node's test runner its own pass and fail counts.
awk '/^test result:/ { p += $4; f += $6 }
     /^(# |ℹ )pass [0-9]+$/ { p += $3 }
     /^(# |ℹ )fail [0-9]+$/ { f += $3 }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
