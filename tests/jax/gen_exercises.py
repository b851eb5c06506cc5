"""Computes the expected values of the exercises in examples/exercises/ with
real JAX and writes them into the problem files.

For each problem NAME.json, the reference solution NAME.py is run with JAX
on 8 CPU devices and its entry function called on every case's arguments,
built as `shardlab check` builds them (arrays with their dtype, tuples,
dicts, the case's mesh over the first devices, Python expressions). The
returned value becomes the case's `expected`, in the problem format; the
file records the JAX version as `expected_from`. The wrong solution
NAME_wrong.py, when there is one, is called too, and the script says on
which cases its value differs (the report checks are shardlab's alone).
Hidden cases are computed like the others: only the learner does not see
them.

Usage, from the repository root:
    /path/to/venv/bin/python tests/jax/gen_exercises.py [NAME ...]
"""

import glob
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXERCISES = os.path.join(ROOT, "examples", "exercises")
DTYPES = {"float32": jnp.float32, "int32": jnp.int32, "bool": jnp.bool_}


def argument(v, mesh):
    """A value of the problem format as the object shardlab's call passes."""
    if isinstance(v, list):
        return [argument(x, mesh) for x in v]
    if not isinstance(v, dict):
        return v
    if "array" in v:
        a = jnp.array(v["array"], dtype=DTYPES[v["dtype"]])
        return a.reshape(tuple(v["shape"])) if "shape" in v else a
    if "tuple" in v:
        return tuple(argument(x, mesh) for x in v["tuple"])
    if "dict" in v:
        return {k: argument(x, mesh) for k, x in v["dict"].items()}
    if "mesh" in v:
        n = int(np.prod(mesh["shape"]))
        return Mesh(np.array(jax.devices()[:n]).reshape(tuple(mesh["shape"])), tuple(mesh["axes"]))
    if "expr" in v:
        scope = {"jax": jax, "jnp": jnp, "np": np, "Mesh": Mesh, "P": P, "NamedSharding": NamedSharding}
        return eval(v["expr"], scope)
    raise ValueError(f"unknown value {v!r}")


def encode(v):
    """A returned value in the problem format."""
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {"dict": {str(k): encode(x) for k, x in v.items()}}
    if v is None or isinstance(v, (bool, int, float)):
        return v
    a = np.asarray(v)
    dtype = {"float32": "float32", "int32": "int32", "bool": "bool"}[str(a.dtype)]
    data = a.tolist()
    if a.ndim == 0:
        return {"array": data, "dtype": dtype, "shape": []}
    return {"array": data, "dtype": dtype}


def entry_of(path, entry):
    scope = {"__name__": "solution"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), scope)
    return scope[entry]


def call(fn, case):
    mesh = case.get("mesh")
    args = [argument(a, mesh) for a in case.get("args", [])]
    kwargs = {k: argument(a, mesh) for k, a in case.get("kwargs", {}).items()}
    return encode(fn(*args, **kwargs))


def close(a, b, case):
    """True when two values in the problem format agree within the case's
    tolerances (same structure, elements close)."""
    try:
        fa, fb = np.asarray(flat(a)), np.asarray(flat(b))
        return fa.shape == fb.shape and bool(np.allclose(
            fa, fb, rtol=case.get("rtol", 1e-5), atol=case.get("atol", 1e-6)))
    except (ValueError, TypeError):
        return False


def flat(v):
    if isinstance(v, dict) and "array" in v:
        return np.ravel(np.asarray(v["array"], dtype=np.float64)).tolist()
    if isinstance(v, dict):
        return [y for x in v.values() for y in flat(x)]
    if isinstance(v, list):
        return [y for x in v for y in flat(x)]
    return [float(v)]


def generate(name):
    path = os.path.join(EXERCISES, name + ".json")
    with open(path) as f:
        problem = json.load(f)
    entry = problem["entry"]
    reference = entry_of(os.path.join(EXERCISES, name + ".py"), entry)
    wrong_path = os.path.join(EXERCISES, name + "_wrong.py")
    wrong = entry_of(wrong_path, entry) if os.path.exists(wrong_path) else None
    for case in problem["cases"]:
        case["expected"] = call(reference, case)
        if wrong is not None:
            try:
                same = close(call(wrong, case), case["expected"], case)
                verdict = "same value" if same else "differs"
            except Exception as e:  # noqa: BLE001 - any exception is a verdict
                verdict = f"raises {type(e).__name__}"
            print(f"{name}: {case.get('name')}: wrong solution {verdict}")
    problem["expected_from"] = f"jax {jax.__version__} on {len(jax.devices())} CPU devices"
    with open(path, "w") as f:
        json.dump(problem, f, indent=2)
        f.write("\n")
    print(f"wrote {path}")


def main():
    names = sys.argv[1:] or sorted(
        os.path.basename(p)[:-5] for p in glob.glob(os.path.join(EXERCISES, "*.json"))
    )
    for name in names:
        generate(name)


if __name__ == "__main__":
    main()
