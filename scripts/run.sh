#!/usr/bin/env bash
# Builds shardlab and runs its main job: the `shardlab` CLI running the SPMD
# tour (examples/tour.py, real JAX code) on 8 simulated devices.
# Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

step "cargo build --release"
cargo build --release --quiet --bin shardlab
step "shardlab run examples/tour.py"
./target/release/shardlab run examples/tour.py
