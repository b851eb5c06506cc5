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
cargo test --quiet 2>&1 | tee target/test.log
