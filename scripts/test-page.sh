#!/usr/bin/env bash
# Builds the playground page, serves it on a free port, runs the end-to-end
# tests in tests/page/ with headless Chromium, and stops the server.
# Screenshots land in docs/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--no-build" ]; then
  bash scripts/build-page.sh
fi
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund
if [ ! -x /usr/bin/chromium ]; then
  apt-get update && apt-get install -y chromium
fi
mkdir -p docs/screenshots
for f in www/js/*.js www/*.js npm/src/*.js npm/src/view/*.js scripts/serve.mjs scripts/build-page.mjs \
  tests/page/*.mjs; do
  node --check "$f"
done

log=$(mktemp)
PORT=0 node scripts/serve.mjs > "$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q '^http://' "$log" && break
  sleep 0.1
done
PAGE_URL=$(grep -m1 '^http://' "$log")
echo "serving www/ at $PAGE_URL"
PAGE_URL=$PAGE_URL node --test --test-concurrency=1 tests/page/
