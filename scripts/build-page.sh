#!/usr/bin/env bash
# Builds the playground page into www/dist/: the engine as wasm
# (www/dist/wasm, through build-wasm.sh: wasm-bindgen's web target and
# wasm-opt) and the core engine the page loads first (www/dist/wasm-core,
# without Flax and Optax), then the page's bundle (scripts/build-page.mjs: esbuild bundles
# js/main.js with CodeMirror and the npm package's client from npm/src, the
# style sheet, and copies the package's coordinator worker). Installs the
# npm dev dependencies when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh
bash scripts/setup-web.sh
if [ ! -x node_modules/.bin/esbuild ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

bash scripts/build-wasm.sh www/dist/wasm
bash scripts/build-wasm.sh www/dist/wasm-core --core

step "scripts/build-page.mjs -> www/dist"
node scripts/build-page.mjs

# The brotli figures are what a browser downloads (docs/page.md, "Measured").
printf 'page built: %s bytes of core engine (%s with brotli), %s of the whole engine (%s), %s bytes of page bundle (%s with brotli)\n' \
  "$(wc -c < www/dist/wasm-core/shardlab_bg.wasm)" "$(wc -c < www/dist/wasm-core/shardlab_bg.wasm.br)" \
  "$(wc -c < www/dist/wasm/shardlab_bg.wasm)" "$(wc -c < www/dist/wasm/shardlab_bg.wasm.br)" \
  "$(wc -c < www/dist/main.js)" "$(wc -c < www/dist/main.js.br)"
