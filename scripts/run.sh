#!/usr/bin/env bash
# Builds shardlab (the CLI and the playground page) and serves the playground
# on http://127.0.0.1:8000/ (PORT changes the port), with the cross-origin
# isolation headers that let every device run in its own Web Worker.
# Installs what is missing first (see setup.sh and setup-web.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

step "cargo build --release --bin shardlab"
cargo build --release --quiet --bin shardlab
bash scripts/build-page.sh
step "serving the playground (Ctrl-C stops it)"
exec node scripts/serve.mjs
