#!/usr/bin/env bash
# Installs what building and testing shardlab needs, skipping what is present.
# Sourced by run.sh and test.sh; safe to run again.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
step() { printf '\033[1m==> %s\033[0m\n' "$*"; }

ensure_rust() {
  if ! have cargo; then
    echo "cargo not found: install Rust with rustup (https://rustup.rs) first" >&2
    exit 1
  fi
  local installed
  installed=$(rustup component list --installed 2>/dev/null || true)
  for c in rustfmt clippy; do
    if ! grep -q "^$c" <<<"$installed"; then
      step "rustup component add $c"
      rustup component add "$c"
    fi
  done
}

ensure_rust
