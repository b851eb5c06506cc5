#!/usr/bin/env bash
# Regenerates docs/benchmarks.md: builds shardlab in release mode, runs
# `shardlab bench` and puts its tables (with the machine and the date) and its
# plot (docs/benchmarks.svg) in place of the generated section of the page.
#
#   scripts/bench.sh [--quick] [--jax] [--web]
#
# --quick  sizes up to 4 MiB per device (a minute or so instead of several)
# --jax    also time JAX against `shardlab run` on the page's examples and
#          one training step (bench/jax_times.py --train, with the venv at
#          $JAX_PYTHON, default /work/venv-jax/bin/python) and replace that
#          section too
# --web    also run the wasm measurements in Node and headless Chromium
#          (scripts/test-web.sh --bench, with --quick when given) and
#          replace that section too
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
jax=0
web=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=(--quick) ;;
        --jax) jax=1 ;;
        --web) web=1 ;;
        *) echo "usage: scripts/bench.sh [--quick] [--jax] [--web]" >&2; exit 2 ;;
    esac
done

target="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin shardlab
bin="$target/release/shardlab"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Replaces the lines between <!-- NAME:begin --> and <!-- NAME:end --> of
# docs/benchmarks.md with the contents of FILE.
splice() {
    local name="$1" file="$2"
    awk -v f="$file" -v b="<!-- $name:begin -->" -v e="<!-- $name:end -->" '
        $0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip' docs/benchmarks.md > "$tmp/page.md"
    mv "$tmp/page.md" docs/benchmarks.md
}

echo "== shardlab bench ${quick[*]}" >&2
"$bin" bench "${quick[@]}" --svg docs/benchmarks.svg > "$tmp/bench.md"
{ echo; cat "$tmp/bench.md"; echo; echo '![bus bandwidth against size](benchmarks.svg)'; echo; } > "$tmp/section.md"
splice bench "$tmp/section.md"

if [ "$jax" = 1 ]; then
    python="${JAX_PYTHON:-/work/venv-jax/bin/python}"
    echo "== bench/jax_times.py" >&2
    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        "$python" bench/jax_times.py --shardlab "$bin" --train > "$tmp/jax.md"
    { echo; cat "$tmp/jax.md"; echo; } > "$tmp/jax-section.md"
    splice jax "$tmp/jax-section.md"
fi
if [ "$web" = 1 ]; then
    echo "== scripts/test-web.sh --bench ${quick[*]}" >&2
    WEB_BENCH_OUT="$tmp" bash scripts/test-web.sh --bench "${quick[@]}" >&2
    {
        for mode in node chromium; do
            echo
            echo "### $mode"
            echo
            cat "$tmp/$mode.md"
        done
        echo
    } > "$tmp/web-section.md"
    splice web "$tmp/web-section.md"
fi
echo "== docs/benchmarks.md updated" >&2
