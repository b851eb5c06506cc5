#!/usr/bin/env bash
# Builds the npm package `shardlab` into target/npm/shardlab/ and packs it:
# the wasm (scripts/build-wasm.sh: size profile, wasm-bindgen, wasm-opt;
# the whole engine and the core one browsers load first),
# the JS entry points and the page modules they use (bundled with esbuild by
# npm/build.mjs), the type declarations and the README. The version is
# Cargo.toml's. Prints the tarball's path and size.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] || { echo "no version in Cargo.toml" >&2; exit 1; }
out=target/npm

bash scripts/build-wasm.sh "$out/wasm-bindgen"
bash scripts/build-wasm.sh "$out/wasm-bindgen-core" --core

step "npm/build.mjs -> $out/shardlab (version $version)"
node npm/build.mjs "$out/shardlab" "$out/wasm-bindgen" "$out/wasm-bindgen-core" "$version"

step "npm pack"
rm -f "$out"/shardlab-*.tgz
tarball=$(cd "$out/shardlab" && npm pack --silent --pack-destination ..)
path=$(cd "$out" && pwd)/$tarball
printf 'package: %s (%s bytes)\n' "$path" "$(wc -c < "$path")"
