#!/usr/bin/env bash
# Tests the npm package as its users get it: builds and packs it
# (build-npm.sh; --no-build reuses target/npm), installs the tarball into a
# fresh temporary project, then runs tests/npm/ with node's test runner:
# in Node on worker_threads devices; in headless Chromium through a Vite
# production build (served with and without COOP/COEP), Vite's dev server
# and a plain page of <shardlab-example> elements; and type-checks a
# program against the declarations.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
source scripts/setup.sh

if [ "${1:-}" != "--no-build" ]; then
  bash scripts/build-npm.sh
fi
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund
tarball=$(ls "$repo"/target/npm/shardlab-*.tgz)

tmp=$(mktemp -d)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

step "a fresh project with $(basename "$tarball") and vite"
cd "$tmp"
npm init -y > /dev/null
npm pkg set type=module > /dev/null
npm install --no-audit --no-fund --loglevel=error "$tarball" vite@7 typescript@5
cp "$repo"/tests/npm/*.mjs .
cp -r "$repo"/tests/npm/vite-app "$repo"/tests/npm/static "$repo"/tests/npm/types .
cp "$repo"/tests/programs/tensor_parallel_mlp.py static/
cp "$repo"/examples/exercises/ring.json "$repo"/examples/exercises/ring_wrong.py "$repo"/examples/exercises/ring.py static/
ln -s ../node_modules static/node_modules

step "vite build"
(cd vite-app && ../node_modules/.bin/vite build --logLevel warn)

# Starts serve.mjs on ROOT (with its other arguments) and prints its URL.
serve() {
  local log
  log=$(mktemp -p "$tmp" serve.XXXX)
  node serve.mjs "$@" > "$log" &
  servers+=($!)
  for _ in $(seq 100); do
    grep -q '^http://' "$log" && break
    sleep 0.1
  done
  grep -m1 '^http://' "$log"
}
log=$(mktemp -p "$tmp")
serve vite-app/dist > "$log"
VITE_URL=$(cat "$log")
serve vite-app/dist --plain > "$log"
VITE_PLAIN_URL=$(cat "$log")
serve static > "$log"
STATIC_URL=$(cat "$log")

step "vite (dev server)"
cd vite-app
NO_COLOR=1 ../node_modules/.bin/vite --host 127.0.0.1 --port 5273 > "$log" 2>&1 &
servers+=($!)
cd ..
for _ in $(seq 300); do
  grep -q 'http://127.0.0.1:[0-9]*/' "$log" && break
  sleep 0.1
done
VITE_DEV_URL=$(grep -o -m1 'http://127.0.0.1:[0-9]*/' "$log")
echo "vite dev server at $VITE_DEV_URL"

step "the package in Node and in headless Chromium"
SHARDLAB_REPO=$repo VITE_URL=$VITE_URL VITE_PLAIN_URL=$VITE_PLAIN_URL VITE_DEV_URL=$VITE_DEV_URL \
  STATIC_URL=$STATIC_URL \
  node --test --test-concurrency=1 node.test.mjs types.test.mjs browser.test.mjs
