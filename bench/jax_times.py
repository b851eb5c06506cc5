"""Times JAX and `shardlab run` on the page's examples (www/examples).

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

With --train, also one data-parallel training step at a compute-bound size
(bench/train_step.py): the program with STEPS = 1 and STEPS = 1 + r, in JAX
(warm: compiled code is reused) and in `shardlab run`, the difference
divided by r (median of 3).

Prints Markdown tables. Run with the JAX venv's python and
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
import tempfile
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


def train_step_times(binary, path, extra=4, reps=3):
    """Seconds per training step in JAX and in shardlab: (time of
    STEPS = 1 + extra - time of STEPS = 1) / extra, median of `reps`."""
    with open(path) as f:
        source = f.read()
    assert "STEPS = 1\n" in source, "the training program sets STEPS = 1"

    def variant(k):
        return source.replace("STEPS = 1\n", f"STEPS = {k}\n")

    run_source(variant(1), path)  # compiles
    jax_steps = []
    for _ in range(reps):
        short = run_source(variant(1), path)
        long = run_source(variant(1 + extra), path)
        jax_steps.append((long - short) / extra)
    ours = []
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for k in (1, 1 + extra):
            name = os.path.join(tmp, f"train_{k}.py")
            with open(name, "w") as f:
                f.write(variant(k))
            files.append(name)
        for _ in range(reps):
            short, long = (shardlab_time(binary, name, reps=1) for name in files)
            if short is None or long is None:
                return statistics.median(jax_steps), None
            ours.append((long - short) / extra)
    return statistics.median(jax_steps), statistics.median(ours)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shardlab", default="target/release/shardlab")
    ap.add_argument("--programs", default="www/examples")
    ap.add_argument("--only", nargs="*", help="program file names to time")
    ap.add_argument("--train", action="store_true", help="also time bench/train_step.py")
    ap.add_argument("--train-program", default="bench/train_step.py")
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
            met = sum(1 for r in ok if r[3] / r[5] >= 10)
            print(
                f"\nMedian of JAX edited / shardlab over {len(ok)} programs: {med:.1f}; "
                f"{met} of {len(ok)} at 10 or more."
            )

    if args.train:
        print(f"{args.train_program}: timing a training step", file=sys.stderr)
        jax_step, ours = train_step_times(args.shardlab, args.train_program)
        print("\n| training step (3-layer MLP, 1024 wide, batch 256, 8 devices) | JAX (jit, warm) "
              "| shardlab | shardlab / JAX |")
        print("|---|---:|---:|---:|")
        if ours is None:
            print(f"| one step | {jax_step * 1e3:.0f} ms | failed | |")
        else:
            print(f"| one step | {jax_step * 1e3:.0f} ms | {ours * 1e3:.0f} ms | {ours / jax_step:.1f} |")


if __name__ == "__main__":
    main()
