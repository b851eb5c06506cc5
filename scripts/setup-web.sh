#!/usr/bin/env bash
# Installs what the WebAssembly tests need, skipping what is present:
# the wasm32 target, wasm-bindgen's test runner (pinned to the version the
# crate's wasm-bindgen dependency is pinned to: the two must match),
# wasm-pack, and Debian's Chromium with its driver for the headless-browser
# runs.
# Safe to run again.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
step() { printf '\033[1m==> %s\033[0m\n' "$*"; }

WASM_BINDGEN_VERSION=0.2.130
WASM_PACK_VERSION=0.15.1

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! have wasm-bindgen-test-runner \
  || ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION"; then
  step "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# wasm-pack builds the engine (build-wasm.sh) and runs the wasm tests
# (test-web.sh); it reads its settings from Cargo.toml.
if ! wasm-pack --version 2>/dev/null | grep -qx "wasm-pack $WASM_PACK_VERSION"; then
  step "cargo install wasm-pack --version $WASM_PACK_VERSION --locked"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked
fi

if [ ! -x /usr/bin/chromium ] || ! have chromedriver; then
  step "apt-get install chromium chromium-driver"
  apt-get update
  apt-get install -y chromium chromium-driver
fi

if ! have node; then
  echo "node not found: the Node runs need Node.js 20 or newer" >&2
  exit 1
fi
