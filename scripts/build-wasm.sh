#!/usr/bin/env bash
# Builds the engine as WebAssembly into OUTDIR: the crate in Cargo.toml's
# `web` profile for wasm32 (optimised for size: opt-level "z", fat LTO, one
# codegen unit), wasm-bindgen's web target (ES-module glue: shardlab.js, and
# shardlab_bg.wasm, without the name and producers sections), then wasm-opt
# from the npm package binaryen (version 132; not Debian 12's binaryen,
# version 108), running only the pass that makes the compressed file
# smaller (docs/page.md has the measurements). Used by build-page.sh
# (www/dist/wasm) and build-npm.sh (the npm package).
#
# With --core, the core engine: built without the Cargo features `flax`
# and `optax` (a third smaller with brotli), which the page loads first and
# replaces by the whole engine when a program imports Flax or Optax
# (npm/src/lab.js). It builds in a target dir of its own ($target_dir/core),
# so that switching features rebuilds neither engine.
#
#   bash scripts/build-wasm.sh OUTDIR [--core]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: build-wasm.sh OUTDIR [--core]}
core=${2:-}

source scripts/setup.sh
bash scripts/setup-web.sh
if [ ! -x node_modules/.bin/wasm-opt ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

target_dir=${CARGO_TARGET_DIR:-target}
features=()
if [ "$core" = "--core" ]; then
  target_dir=$target_dir/core
  features=(--no-default-features)
elif [ -n "$core" ]; then
  echo "usage: build-wasm.sh OUTDIR [--core]" >&2
  exit 2
fi
step "cargo build --profile web --target wasm32-unknown-unknown --lib ${features[*]}"
cargo build --profile web --target wasm32-unknown-unknown --lib --target-dir "$target_dir" "${features[@]}"

step "wasm-bindgen --target web --out-dir $out"
rm -rf "$out"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir "$out" "$target_dir/wasm32-unknown-unknown/web/shardlab.wasm"

wasm=$out/shardlab_bg.wasm
# wasm-opt may use exactly the features rustc declared in the module's
# target_features section (simd128 among them, see .cargo/config.toml): no
# fewer, or it refuses the module, and no more, so the output loads wherever
# rustc's does.
mapfile -t features < <(node_modules/.bin/wasm-opt --print-features "$wasm" 2>/dev/null | grep '^--enable-')
if [ ${#features[@]} -eq 0 ]; then
  echo "error: $wasm declares no target features; wasm-opt would reject its SIMD" >&2
  exit 1
fi
# Measured on the size-optimised build: -O3, -Oz and -Os make the wasm
# smaller but its brotli and gzip larger (they reorder functions, pack the
# data segments and rewrite locals in ways that compress worse); duplicate
# function elimination alone makes both smaller, in seconds.
WASM_OPT_FLAGS=(--duplicate-function-elimination "${features[@]}")
before=$(wc -c < "$wasm")
# wasm-opt's output is kept in the target dir by a hash of its input and
# flags, and reused.
cache=$target_dir/wasm-opt-cache
key=$( (sha256sum < "$wasm"; echo "${WASM_OPT_FLAGS[*]}"; node_modules/.bin/wasm-opt --version) \
  | sha256sum | cut -c1-24)
if [ -f "$cache/$key.wasm" ]; then
  step "wasm-opt: unchanged input, reusing $cache/$key.wasm"
else
  step "wasm-opt ${WASM_OPT_FLAGS[*]}"
  mkdir -p "$cache"
  node_modules/.bin/wasm-opt "${WASM_OPT_FLAGS[@]}" "$wasm" -o "$cache/$key.wasm.tmp"
  mv "$cache/$key.wasm.tmp" "$cache/$key.wasm"
fi
cp "$cache/$key.wasm" "$wasm"
printf 'wasm: %s bytes from wasm-bindgen, %s after wasm-opt\n' "$before" "$(wc -c < "$wasm")"
