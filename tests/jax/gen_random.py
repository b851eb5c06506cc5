"""Expected values for tests/random.rs, computed with JAX and Flax.

Run with the JAX virtualenv from the repository root:

    /work/venv-jax/bin/python tests/jax/gen_random.py > tests/fixtures/random.json

Float arrays are recorded as float32 bit patterns (uint32) so the Rust side
can compare them exactly or in ulps; keys and bits as uint32.
"""

import json
import platform
import sys
import warnings

warnings.filterwarnings("ignore")

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
from flax import nnx
from jax import lax
from jax._src.random import threefry2x32 as tf

U32 = 0xFFFFFFFF


def u32list(x):
    return [int(v) for v in np.asarray(x, dtype=np.uint32).ravel()]


def fbits(x):
    a = np.asarray(x, dtype=np.float32)
    return {"shape": list(a.shape), "bits": [int(v) for v in a.view(np.uint32).ravel()]}


def ints(x):
    a = np.asarray(x)
    return {"shape": list(a.shape), "values": [int(v) for v in a.ravel()]}


def kd(key):
    return u32list(jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key)


out = {
    "versions": {
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "flax": flax.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "threefry_partitionable": bool(jax.config.jax_threefry_partitionable),
    }
}

# Known-answer vectors of Threefry-2x32 with 20 rounds (Random123 / JAX tests).
kat = []
for k, c in [
    ([0, 0], [0, 0]),
    ([U32, U32], [U32, U32]),
    ([0x13198A2E, 0x03707344], [0x243F6A88, 0x85A308D3]),
]:
    r = tf.threefry_2x32(np.uint32(k), np.uint32(c))
    kat.append({"key": k, "count": c, "out": [int(v) for v in r]})
out["threefry_kat"] = kat

# The array-level hash with an odd number of counts (padding).
out["threefry_odd"] = {
    "key": [7, 9],
    "counts": list(range(5)),
    "out": u32list(tf.threefry_2x32(np.uint32([7, 9]), np.arange(5, dtype=np.uint32))),
}

seeds = [0, 42, -1, 2**40, 2**31, 2**32 + 5, -(2**31) - 1, 2**63 - 1, -(2**63)]
out["seeds"] = [
    {"seed": str(s), "prngkey": u32list(jax.random.PRNGKey(s)), "key": kd(jax.random.key(s))}
    for s in seeds
]

k0 = jax.random.PRNGKey(0)
k42 = jax.random.PRNGKey(42)
out["split"] = [
    {"key": u32list(k), "num": n, "keys": [u32list(x) for x in jax.random.split(k, n)]}
    for k, n in [(k0, 2), (k0, 3), (k42, 2), (k42, 3), (k42, 1)]
]
out["fold_in"] = [
    {"key": u32list(k), "data": d, "out": u32list(jax.random.fold_in(k, np.uint32(d)))}
    for k in (k0, k42)
    for d in (0, 1, 7, 2**31 + 3, U32)
]

shapes = [(), (1,), (5,), (3, 4), (2, 3, 5), (0,), (4, 0, 2)]
out["bits"] = [
    {"key": u32list(k), "shape": list(s), "bits": u32list(jax.random.bits(k, s))}
    for k in (k0, k42)
    for s in shapes
]

out["uniform"] = [
    {"key": u32list(k), "shape": list(s), "minval": lo, "maxval": hi,
     "out": fbits(jax.random.uniform(k, s, minval=lo, maxval=hi))}
    for k, s, lo, hi in [
        (k0, (), 0.0, 1.0),
        (k0, (3, 4), 0.0, 1.0),
        (k42, (2, 3, 5), 0.0, 1.0),
        (k42, (7,), -2.5, 3.25),
        (k0, (6,), 1.0, 1.0),
    ]
]

big = jax.random.PRNGKey(1234)
out["normal"] = [
    {"key": u32list(k), "shape": list(s), "out": fbits(jax.random.normal(k, s))}
    for k, s in [(k0, ()), (k0, (3, 4)), (k42, (2, 3, 5)), (big, (4096,))]
]

out["truncated_normal"] = [
    {"key": u32list(k), "lower": lo, "upper": hi, "shape": list(s),
     "out": fbits(jax.random.truncated_normal(k, lo, hi, s))}
    for k, lo, hi, s in [
        (k0, -2.0, 2.0, (3, 4)),
        (k42, -2.0, 2.0, (2, 3, 5)),
        (big, -2.0, 2.0, (4096,)),
        (k42, -1.0, 3.5, (9,)),
        (k42, 0.5, 0.75, (9,)),
    ]
]

out["bernoulli"] = [
    {"key": u32list(k), "p": p, "shape": list(s),
     "out": ints(jax.random.bernoulli(k, p, s))}
    for k, p, s in [(k0, 0.3, (3, 4)), (k42, 0.3, (2, 3, 5)), (k42, 0.9, (11,))]
]

out["randint"] = [
    {"key": u32list(k), "shape": list(s), "minval": lo, "maxval": hi,
     "out": ints(jax.random.randint(k, s, lo, hi))}
    for k, s, lo, hi in [
        (k0, (3, 4), 0, 10),
        (k42, (2, 3, 5), 0, 10),
        (k0, (3, 4), -5, 100),
        (k42, (7,), -5, 100),
        (k42, (7,), -(2**31), 2**31 - 1),
        (k42, (7,), 100000, 2**31 - 1),
        (k0, (4,), 5, 5),
        (k0, (4,), 9, 3),
        (k0, (), 0, 10),
    ]
]

out["permutation"] = [
    {"key": u32list(k), "n": n, "out": ints(jax.random.permutation(k, n))}
    for k, n in [(k0, 10), (k42, 10), (k42, 1), (k0, 0), (k42, 2000)]
]
arr = jnp.arange(15, dtype=jnp.float32).reshape(5, 3) * 0.5
out["permutation_array"] = {
    "key": u32list(k42),
    "x": fbits(arr),
    "out": fbits(jax.random.permutation(k42, arr)),
}
out["choice"] = [
    {"key": u32list(k), "n": n, "shape": list(s), "replace": r,
     "out": ints(jax.random.choice(k, n, s, replace=r))}
    for k, n, s, r in [(k0, 10, (4,), True), (k42, 10, (2, 3), False), (k42, 7, (), True)]
]

# XLA's float32 special functions on a grid (the samplers' building blocks).
grid = np.concatenate([
    np.linspace(-1, 1, 2001, dtype=np.float32),
    np.array([-0.99999994, 0.99999994, 1e-8, -1e-30, 0.6436, -0.64365], np.float32),
    np.asarray(jax.random.uniform(big, (4000,), minval=-1.0, maxval=1.0)),
]).astype(np.float32)
egrid = np.concatenate([
    np.linspace(-5, 5, 2001, dtype=np.float32),
    np.array([-2.0 / np.sqrt(np.float32(2)), 2.0 / np.sqrt(np.float32(2)), 3.8325, 3.9, 1e-20],
             np.float32),
]).astype(np.float32)
lgrid = np.concatenate([
    np.linspace(-0.999, 3, 2001, dtype=np.float32),
    np.array([1e-10, -1e-7, 0.41421354, -0.41421354, 0.5, -0.5, 100.0, 1e30], np.float32),
]).astype(np.float32)
out["special"] = {
    "erf_inv_x": fbits(grid), "erf_inv": fbits(jax.jit(lax.erf_inv)(grid)),
    "erf_x": fbits(egrid), "erf": fbits(jax.jit(lax.erf)(egrid)),
    # Fused with a multiplication by 2 (exact), XLA emits the loop-fusion erf.
    "erf_fused": fbits(jax.jit(lambda x: lax.erf(x) * np.float32(2))(egrid)),
    "log1p_x": fbits(lgrid), "log1p": fbits(jax.jit(jnp.log1p)(lgrid)),
}

init = jax.nn.initializers
out["initializers"] = [
    {"name": name, "key": u32list(k), "shape": list(s), "out": fbits(fn(k, s, jnp.float32))}
    for name, fn, k, s in [
        ("lecun_normal", init.lecun_normal(), k0, (4, 3)),
        ("lecun_normal", init.lecun_normal(), k42, (3, 4, 5)),
        ("lecun_uniform", init.lecun_uniform(), k42, (4, 3)),
        ("glorot_normal", init.glorot_normal(), k42, (4, 3)),
        ("xavier_uniform", init.xavier_uniform(), k42, (4, 3)),
        ("he_normal", init.he_normal(), k0, (6, 5)),
        ("he_uniform", init.he_uniform(), k0, (6, 5)),
        ("normal_0.02", init.normal(0.02), k42, (4, 3)),
        ("uniform_0.5", init.uniform(0.5), k42, (4, 3)),
        ("truncated_normal_0.5", init.truncated_normal(0.5), k42, (4, 3)),
        ("variance_scaling_2_fan_out_normal", init.variance_scaling(2.0, "fan_out", "normal"), k0, (2, 3, 4)),
        ("variance_scaling_0.5_fan_geo_avg_uniform",
         init.variance_scaling(0.5, "fan_geo_avg", "uniform"), k0, (5, 7)),
        ("zeros", init.zeros, k0, (2, 3)),
        ("ones", init.ones, k0, (2, 3)),
    ]
]

# linen: nn.Dense at the top level and inside a module.
x = jnp.ones((2, 4))
dense = nn.Dense(3).init(k0, x)["params"]


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(5)(x)
        return nn.Dense(2)(x)


mlp = MLP().init(k42, x)["params"]
out["linen"] = {
    "dense": {"seed": 0, "in": 4, "features": 3,
              "kernel": fbits(dense["kernel"]), "bias": fbits(dense["bias"])},
    "mlp": {"seed": 42, "in": 4,
            "layers": [{"path": name, "features": int(p["bias"].shape[0]),
                        "kernel": fbits(p["kernel"]), "bias": fbits(p["bias"])}
                       for name, p in sorted(mlp.items())]},
}


def lin(m):
    return {"kernel": fbits(m.kernel[...]), "bias": fbits(m.bias[...])}


r1 = nnx.Rngs(1)
a = nnx.Linear(4, 8, rngs=r1)
b = nnx.Linear(8, 2, rngs=r1)
r2 = nnx.Rngs(params=7, dropout=3)
c = nnx.Linear(3, 2, rngs=r2)
out["nnx"] = {
    "linear_4_3_seed0": lin(nnx.Linear(4, 3, rngs=nnx.Rngs(0))),
    "linear_2_1_seed42": lin(nnx.Linear(2, 1, rngs=nnx.Rngs(42))),
    "two_linears_seed1": [lin(a), lin(b)],
    "params_stream_7": lin(c),
    "dropout_key_after": u32list(jax.random.key_data(r2.dropout())),
}

json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
