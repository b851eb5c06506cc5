#!/usr/bin/env bash
# Builds the playground page in www/: the engine as wasm (www/pkg, through
# build-wasm.sh: wasm-bindgen's web target and wasm-opt) and the editor
# bundle (www/vendor, through esbuild). Installs the npm dev dependencies
# when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh
bash scripts/setup-web.sh
if [ ! -x node_modules/.bin/esbuild ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

bash scripts/build-wasm.sh www/pkg

step "esbuild www/codemirror.entry.mjs -> www/vendor/codemirror.js"
node_modules/.bin/esbuild www/codemirror.entry.mjs --bundle --minify \
  --format=esm --outfile=www/vendor/codemirror.js --log-level=warning

printf 'page built: %s bytes of wasm, %s bytes of editor\n' \
  "$(wc -c < www/pkg/shardlab_bg.wasm)" "$(wc -c < www/vendor/codemirror.js)"
