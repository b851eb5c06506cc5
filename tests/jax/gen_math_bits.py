"""Evaluates JAX's float32 transcendental functions on CPU and records their
exact output bits, so shardlab's `xla_math` can be checked bit for bit.

Two modes, from the repository root:

    python tests/jax/gen_math_bits.py dump DIR [N]
        For every function, N (default 200000) log-uniformly spread inputs
        plus special values, evaluated under `jax.jit`; writes DIR/NAME.bin
        (little-endian u32 words: the count, the x bits, the y bits for
        two-operand functions, the output bits) and prints whether eager
        evaluation gives the same bits as jit.

    python tests/jax/gen_math_bits.py fixture [EXTRA_DIR]
        Writes tests/fixtures/xla_math.txt for the functions shardlab
        computes (FIXTURE): special values, a fixed-seed sample of 1000
        inputs per function and, if EXTRA_DIR is given, the inputs listed in
        EXTRA_DIR/NAME.txt (hex bits, one per line, `x y` for two-operand
        functions; e.g. inputs where an earlier formula disagreed), with
        JAX's output bits. Inputs already in the fixture are kept, so
        regenerating never loses a case.

Run it under `flock /tmp/jax.lock` with /work/venv/bin/python.
"""

import os
import struct
import sys

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
from jax import lax

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE_PATH = os.path.join(ROOT, "tests", "fixtures", "xla_math.txt")

F32_MAX = np.finfo(np.float32).max
TINY = np.finfo(np.float32).tiny  # smallest normal
DENORM = np.float32(1e-45)


def bits_range(rng, lo, hi, n):
    """n floats with bit patterns uniform between |lo| and |hi| (so spread
    log-uniformly), of both signs when `signed`."""
    a = np.float32(lo).view(np.uint32)
    b = np.float32(hi).view(np.uint32)
    u = rng.integers(int(a), int(b) + 1, size=n, dtype=np.uint64).astype(np.uint32)
    return u.view(np.float32)


def signed(rng, lo, hi, n):
    v = bits_range(rng, lo, hi, n)
    s = rng.integers(0, 2, size=n).astype(bool)
    return np.where(s, -v, v).astype(np.float32)


SPECIAL = [
    0.0, -0.0, np.inf, -np.inf, np.nan, DENORM, -DENORM, TINY, -TINY,
    np.float32(1e-40), np.float32(-1e-40), F32_MAX, -F32_MAX, 1.0, -1.0,
    0.5, -0.5, 2.0, -2.0, 1e-8, -1e-8, 1e-4, -1e-4, 0.1, -0.1,
]


def unary_inputs(name, rng, n):
    """Inputs spread over the domain where the function is interesting,
    plus its thresholds."""
    k = n // 4
    if name in ("exp", "expm1", "exp2", "sinh", "cosh"):
        extra = [88.0, 88.72283, 88.72284, 89.0, -87.33654, -87.3366, -103.0,
                 -103.97, -104.0, -150.0, 128.0, -126.0, -149.0, 0.34657359,
                 -0.34657359, 0.6931472, 1.0e-3]
        parts = [signed(rng, 1e-10, 110.0, 3 * k), rng.uniform(-110, 110, k)]
    elif name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        extra = [0.99999994, 1.0000001, 0.70710677, 1.4142135, 0.5, 4.0]
        parts = [bits_range(rng, 1e-45, F32_MAX, 2 * k),
                 rng.uniform(0.5, 2.0, k), signed(rng, 1e-3, 1e3, k)]
    elif name == "log1p":
        extra = [-0.99999994, -0.5, -0.29289323, 0.41421357, 1e-20, -1e-20,
                 -1.0, -1.5]
        parts = [bits_range(rng, 1e-45, F32_MAX, k), -bits_range(rng, 1e-45, 1.0, k),
                 rng.uniform(-0.5, 1.0, k), signed(rng, 1e-4, 1.0, k)]
    elif name in ("tanh", "logistic", "erf"):
        extra = [7.90531110763549805, 9.0, 15.0, 16.0, 20.0, 0.0004, -0.0004,
                 3.832507, 3.832506, 0.625, 88.72283, -88.72283, 104.0, -104.0]
        parts = [signed(rng, 1e-12, 120.0, 3 * k), rng.uniform(-10, 10, k)]
    elif name in ("sin", "cos", "tan"):
        extra = [3.1415927, 1.5707964, 6.2831855, 1e5, 1e6, 1e7, 1e20, 1e30,
                 105414.35, 8388608.0, 1.0e-5]
        parts = [signed(rng, 1e-12, 1e4, 2 * k), rng.uniform(-10, 10, k),
                 signed(rng, 1e4, F32_MAX, k)]
    elif name in ("erf_inv",):
        extra = [0.99999994, -0.99999994, 0.9999, 0.5, 1e-30]
        parts = [signed(rng, 1e-12, 1.0, k), rng.uniform(-1, 1, k),
                 1.0 - bits_range(rng, 1e-8, 0.5, k),
                 -(1.0 - bits_range(rng, 1e-8, 0.5, k))]
    elif name in ("arcsin", "arccos"):
        extra = [0.99999994, -0.99999994, 0.5, -0.5, 1.5]
        parts = [signed(rng, 1e-12, 1.0, 2 * k), rng.uniform(-1, 1, 2 * k)]
    elif name == "arctan":
        extra = [1e30, -1e30, 1e10]
        parts = [signed(rng, 1e-12, F32_MAX, 2 * k), rng.uniform(-10, 10, 2 * k)]
    else:
        raise ValueError(name)
    xs = np.concatenate([np.array(SPECIAL + extra, np.float32)]
                        + [np.asarray(p, np.float32) for p in parts])
    return xs, None


def binary_inputs(name, rng, n):
    k = n // 4
    sp = np.array(SPECIAL, np.float32)
    gx, gy = np.meshgrid(sp, sp)
    if name == "power":
        xs = [bits_range(rng, 1e-30, 1e30, 2 * k), rng.uniform(0, 4, k),
              -bits_range(rng, 1e-3, 1e3, k)]
        ys = [rng.uniform(-8, 8, 2 * k), rng.uniform(-40, 40, k),
              np.round(rng.uniform(-10, 10, k))]
        extra_x = [2.0, 10.0, 0.5, -2.0, -8.0, 1.0000001, 0.99999994]
        extra_y = [0.5, 3.0, -1.0, 3.0, 1.0 / 3.0, 1e9, 1e9]
    elif name == "arctan2":
        xs = [signed(rng, 1e-30, 1e30, 2 * k), rng.uniform(-4, 4, 2 * k)]
        ys = [signed(rng, 1e-30, 1e30, 2 * k), rng.uniform(-4, 4, 2 * k)]
        extra_x, extra_y = [], []
    else:
        raise ValueError(name)
    x = np.concatenate([gx.ravel(), np.array(extra_x, np.float32)]
                       + [np.asarray(p, np.float32) for p in xs])
    y = np.concatenate([gy.ravel(), np.array(extra_y, np.float32)]
                       + [np.asarray(p, np.float32) for p in ys])
    return x.astype(np.float32), y.astype(np.float32)


UNARY = {
    "exp": jnp.exp,
    "log": jnp.log,
    "log1p": jnp.log1p,
    "expm1": jnp.expm1,
    "tanh": jnp.tanh,
    "logistic": jax.nn.sigmoid,
    "sin": jnp.sin,
    "cos": jnp.cos,
    "tan": jnp.tan,
    "sqrt": jnp.sqrt,
    "rsqrt": lax.rsqrt,
    "erf": jax.scipy.special.erf,
    "erf_inv": lax.erf_inv,
    "sinh": jnp.sinh,
    "cosh": jnp.cosh,
    "arcsin": jnp.arcsin,
    "arccos": jnp.arccos,
    "arctan": jnp.arctan,
    "exp2": jnp.exp2,
    "log2": jnp.log2,
    "log10": jnp.log10,
}
BINARY = {"power": jnp.power, "arctan2": jnp.arctan2}

# The functions shardlab computes, which the committed fixture covers.
FIXTURE = [
    "exp", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "sqrt",
    "rsqrt", "erf", "erf_inv", "power", "arctan2",
]


def evaluate(name, x, y):
    f = UNARY.get(name) or BINARY[name]
    args = (x,) if y is None else (x, y)
    jitted = np.asarray(jax.jit(f)(*args)).view(np.uint32)
    with jax.disable_jit():
        eager = np.asarray(f(*args)).view(np.uint32)
    return jitted, eager


def inputs(name, rng, n):
    if name in UNARY:
        return unary_inputs(name, rng, n)
    return binary_inputs(name, rng, n)


def dump(out_dir, n):
    os.makedirs(out_dir, exist_ok=True)
    for i, name in enumerate(list(UNARY) + list(BINARY)):
        rng = np.random.default_rng(1000 + i)
        x, y = inputs(name, rng, n)
        out, eager = evaluate(name, x, y)
        differ = int(np.sum(out != eager))
        print(f"{name}: {len(x)} inputs, jit vs eager differ on {differ}")
        words = [np.array([len(x)], np.uint32), x.view(np.uint32)]
        if y is not None:
            words.append(y.view(np.uint32))
        words.append(out)
        with open(os.path.join(out_dir, name + ".bin"), "wb") as fh:
            fh.write(np.concatenate(words).astype("<u4").tobytes())


def read_extra(extra_dir, name, binary):
    path = os.path.join(extra_dir, name + ".txt") if extra_dir else None
    if not path or not os.path.exists(path):
        return [], []
    xs, ys = [], []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if not parts:
                continue
            xs.append(int(parts[0], 16))
            if binary:
                ys.append(int(parts[1], 16))
    return xs, ys


def as_f32(words):
    return np.array(words, np.uint32).view(np.float32)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def read_fixture_inputs():
    """The inputs of the existing fixture, per function: (x words, y words)."""
    kept = {}
    if not os.path.exists(FIXTURE_PATH):
        return kept
    with open(FIXTURE_PATH) as fh:
        for line in fh:
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            xs, ys = kept.setdefault(parts[0], ([], []))
            xs.append(int(parts[1], 16))
            if len(parts) == 4:
                ys.append(int(parts[2], 16))
    return kept


def fixture(extra_dir):
    lines = [
        "# JAX's float32 output bits on CPU, written by tests/jax/gen_math_bits.py",
        f"# jax {jax.__version__}, jaxlib {jaxlib.__version__}, platform "
        f"{jax.devices()[0].platform}",
        f"# cpu: {cpu_model()} (lax.rsqrt's bits depend on it)",
        "# line: function x_bits [y_bits] out_bits (hex)",
    ]
    kept = read_fixture_inputs()
    for i, name in enumerate(FIXTURE):
        rng = np.random.default_rng(7 + i)
        x, y = inputs(name, rng, 1000)
        ex, ey = read_extra(extra_dir, name, y is not None)
        kx, ky = kept.get(name, ([], []))
        x = np.concatenate([x, as_f32(ex), as_f32(kx)])
        if y is not None:
            y = np.concatenate([y, as_f32(ey), as_f32(ky)])
        out, _ = evaluate(name, x, y)
        xb = x.view(np.uint32)
        yb = None if y is None else y.view(np.uint32)
        seen = set()
        for j in range(len(x)):
            key = (int(xb[j]), None if yb is None else int(yb[j]))
            if key in seen:
                continue
            seen.add(key)
            mid = "" if yb is None else f" {yb[j]:08x}"
            lines.append(f"{name} {xb[j]:08x}{mid} {out[j]:08x}")
    with open(FIXTURE_PATH, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {FIXTURE_PATH}: {len(lines) - 4} cases")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "fixture"
    if mode == "dump":
        n = int(sys.argv[3]) if len(sys.argv) > 3 else 200000
        dump(sys.argv[2], n)
    elif mode == "fixture":
        fixture(sys.argv[2] if len(sys.argv) > 2 else None)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
