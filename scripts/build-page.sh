#!/usr/bin/env bash
# Builds the playground page in www/: the engine as wasm (www/pkg, through
# wasm-bindgen's web target) and the editor bundle (www/vendor, through
# esbuild). Installs the npm dev dependencies when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh
bash scripts/setup-web.sh
if [ ! -x node_modules/.bin/esbuild ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

target_dir=${CARGO_TARGET_DIR:-target}
step "cargo build --release --target wasm32-unknown-unknown --lib"
cargo build --release --target wasm32-unknown-unknown --lib

step "wasm-bindgen --target web --out-dir www/pkg"
rm -rf www/pkg
wasm-bindgen --target web --no-typescript --out-dir www/pkg \
  "$target_dir/wasm32-unknown-unknown/release/shardlab.wasm"

step "esbuild www/codemirror.entry.mjs -> www/vendor/codemirror.js"
node_modules/.bin/esbuild www/codemirror.entry.mjs --bundle --minify \
  --format=esm --outfile=www/vendor/codemirror.js --log-level=warning

printf 'page built: %s bytes of wasm, %s bytes of editor\n' \
  "$(wc -c < www/pkg/shardlab_bg.wasm)" "$(wc -c < www/vendor/codemirror.js)"
