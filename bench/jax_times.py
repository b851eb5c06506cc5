"""Times JAX and `shardlab run` on the programs of tests/programs.

For each program that JAX runs without error, in one process (jax already
imported, its 8 CPU devices up):
- `first`: the first exec of the source;
- `edited`: an exec of the source with its first float literal changed
  (0.1 -> 0.11), as after an edit in a live session: the program's functions
  are new objects, so JAX traces them again, and what compiles to new HLO is
  compiled again;
- `edited, cleared`: the same with another edit after `jax.clear_caches()`,
  so that nothing is reused from earlier runs.
And `shardlab run FILE` as a fresh process, wall clock (median of 3).

Prints a Markdown table. Run with the JAX venv's python and
XLA_FLAGS=--xla_force_host_platform_device_count=8 (set here if missing).
"""

import argparse
import contextlib
import io
import os
import re
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

FLOAT = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\w.])")


def edit(source, digit):
    """The source with its first float literal given one more digit, or
    with a comment appended when it has none."""
    m = FLOAT.search(source)
    if not m:
        return source + f"\n# edit {digit}\n", "comment"
    return source[: m.end()] + digit + source[m.end() :], f"{m.group(1)} -> {m.group(1)}{digit}"


def run_source(source, path):
    """Seconds to exec `source` as a script, its output discarded."""
    namespace = {"__name__": "__main__", "__file__": path}
    code = compile(source, path, "exec")
    sink = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(sink):
        exec(code, namespace)
    return time.perf_counter() - t


def shardlab_time(binary, path, reps=3):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        r = subprocess.run([binary, "run", path], capture_output=True)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            return None
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shardlab", default="target/release/shardlab")
    ap.add_argument("--programs", default="tests/programs")
    ap.add_argument("--only", nargs="*", help="program file names to time")
    args = ap.parse_args()

    t = time.perf_counter()
    import jax
    import jax.numpy as jnp

    jnp.zeros(1).block_until_ready()
    startup = time.perf_counter() - t

    rows = []
    names = sorted(f for f in os.listdir(args.programs) if f.endswith(".py"))
    if args.only:
        names = [n for n in names if n in args.only]
    for name in names:
        path = os.path.join(args.programs, name)
        with open(path) as f:
            source = f.read()
        try:
            first = run_source(source, path)
        except BaseException as e:  # noqa: BLE001 - programs may raise anything
            print(f"{name}: skipped, JAX raised {type(e).__name__}", file=sys.stderr)
            continue
        try:
            src1, what = edit(source, "1")
            src2, _ = edit(source, "2")
            try:
                edited = run_source(src1, path)
            except BaseException:  # noqa: BLE001 - the constant may feed a shape
                src1, what = source + "\n# edit 1\n", "comment"
                src2 = source + "\n# edit 2\n"
                edited = run_source(src1, path)
            jax.clear_caches()
            cleared = run_source(src2, path)
        except BaseException as e:  # noqa: BLE001
            print(f"{name}: skipped, the edited program raised {type(e).__name__}", file=sys.stderr)
            continue
        ours = shardlab_time(args.shardlab, path)
        rows.append((name, what, first, edited, cleared, ours))
        print(
            f"{name}: first {first:.3f} s, edited {edited:.3f} s, cleared {cleared:.3f} s, "
            f"shardlab {'failed' if ours is None else f'{ours:.3f} s'}",
            file=sys.stderr,
        )

    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(
        f"Measured {time.strftime('%Y-%m-%d', time.gmtime())}, load average {load} at the end. "
        f"JAX {jax.__version__} on {jax.device_count()} CPU devices; "
        f"`import jax` and first dispatch took {startup:.2f} s (not counted below).\n"
    )
    print(
        "| program | edit | JAX first | JAX edited | JAX edited, caches cleared "
        "| `shardlab run` (process) | JAX edited / shardlab |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, what, first, edited, cleared, ours in rows:
        ratio = "" if ours is None else f"{edited / ours:.1f}"
        ours_s = "failed" if ours is None else f"{ours * 1e3:.0f} ms"
        print(
            f"| {name} | {what} | {first * 1e3:.0f} ms | {edited * 1e3:.0f} ms "
            f"| {cleared * 1e3:.0f} ms | {ours_s} | {ratio} |"
        )
    if rows:
        ok = [r for r in rows if r[5] is not None]
        if ok:
            med = statistics.median(r[3] / r[5] for r in ok)
            print(f"\nMedian of JAX edited / shardlab over {len(ok)} programs: {med:.1f}.")


if __name__ == "__main__":
    main()
