#!/usr/bin/env bash
# Builds the engine as WebAssembly into OUTDIR with `wasm-pack build
# --profile web --target web`: the crate in Cargo.toml's `web` profile for
# wasm32 (optimised for size: opt-level "z", fat LTO, one codegen unit),
# wasm-bindgen's web target (ES-module glue: shardlab.js, and
# shardlab_bg.wasm), then wasm-opt from the npm package binaryen (version
# 132; not Debian 12's binaryen, version 108) with the flags of
# Cargo.toml's [package.metadata.wasm-pack.profile.custom], the settings
# `wasm-pack build --profile web` reads: the same engine, byte for byte.
# wasm-opt runs here rather than inside wasm-pack (`--no-opt`) so that its
# output is cached, and so that no other wasm-opt on PATH is ever used.
# Used by build-page.sh (www/dist/wasm) and build-npm.sh (the npm package).
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
# wasm-pack resolves a relative --out-dir against the crate, not the caller.
case $out in /*) ;; *) out=$PWD/$out ;; esac
rm -rf "$out"
step "wasm-pack build --profile web --target web ${features[*]}"
# --mode no-install: wasm-pack uses the wasm-bindgen 0.2.130 on PATH
# (setup-web.sh) and downloads nothing.
wasm-pack build --mode no-install --profile web --target web --no-typescript --no-pack --no-gitignore \
  --no-opt --out-dir "$out" -- --target-dir "$target_dir" "${features[@]}"

wasm=$out/shardlab_bg.wasm
# wasm-opt's flags, from Cargo.toml (see there).
mapfile -t WASM_OPT_FLAGS < <(cargo metadata --no-deps --format-version 1 | node -e '
  let text = "";
  process.stdin.on("data", (d) => (text += d)).on("end", () => {
    const pkg = JSON.parse(text).packages.find((p) => p.name === "shardlab");
    const flags = pkg.metadata["wasm-pack"].profile.custom["wasm-opt"];
    console.log(flags.join("\n"));
  });')
# The --enable- flags must be exactly the features rustc declared in the
# module's target_features section (simd128 among them, see
# .cargo/config.toml): a new Rust may declare more.
declared=$(node_modules/.bin/wasm-opt --print-features "$wasm" 2>/dev/null | grep '^--enable-' | sort)
listed=$(printf '%s\n' "${WASM_OPT_FLAGS[@]}" | grep '^--enable-' | sort)
if [ "$declared" != "$listed" ]; then
  echo "error: the module declares the target features" >&2
  echo "$declared" | sed 's/^/  /' >&2
  echo "but Cargo.toml's [package.metadata.wasm-pack.profile.*] wasm-opt lists" >&2
  echo "$listed" | sed 's/^/  /' >&2
  exit 1
fi
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
