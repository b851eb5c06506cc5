#!/usr/bin/env bash
# Builds shardlab and runs its main job: the SPMD tour on 8 simulated devices.
# Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

step "cargo build --release"
cargo build --release --quiet --examples
step "the SPMD tour (examples/spmd_tour.rs)"
cargo run --release --quiet --example spmd_tour
