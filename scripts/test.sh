#!/usr/bin/env bash
# Runs every test of shardlab: formatting, lints, and the test suite.
# Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --all-targets --quiet -- -D warnings

step "cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test 2>&1 | tee "$log"
# One closing line for the whole run (cargo prints one per test binary).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
