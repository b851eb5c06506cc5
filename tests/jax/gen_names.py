"""Writes src/modules/names.json: the public names of every module shardlab
provides, as JAX 0.10.2, Flax 0.12.8, Optax 0.2.8 and NumPy 2.4.6 define
them. A program that uses one of these names where shardlab has none gets
`NotImplementedError: not supported by shardlab yet: jax.lax.scan`; a name
the real module does not have either is an AttributeError, as it is in JAX.

It also writes the keyword parameters of the real functions ("signatures"):
a keyword argument a shardlab function never looks at is refused by name
when the real function has that parameter, and is a TypeError when it has
not, instead of being silently ignored.

Usage, from the repository root:
    /path/to/venv/bin/python tests/jax/gen_names.py
"""

import importlib
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

MODULES = [
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.scipy.linalg", "jax.lax", "jax.random", "jax.nn", "jax.nn.initializers",
    "jax.tree_util", "jax.tree", "jax.dtypes", "jax.sharding", "jax.debug", "jax.experimental",
    "jax.experimental.shard_map", "jax.experimental.mesh_utils", "jax.experimental.sparse", "jax.scipy",
    "jax.scipy.special", "jax.extend", "jax.extend.core", "flax", "flax.linen", "flax.nnx", "flax.struct", "flax.core",
    "flax.core.frozen_dict", "optax", "optax.transforms",
    "optax.losses", "optax.tree_utils", "optax.tree", "optax.contrib", "optax.projections", "optax.schedules",
    "jax.scipy.stats", "jax.lax.linalg", "flax.traverse_util", "flax.nnx.bridge", "jax.errors", "numpy",
    "numpy.random", "numpy.testing",
]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def type_examples():
    """Real objects behind the library objects shardlab models, keyed by the
    type name shardlab gives them."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec

    def f(x):
        return x * 2

    x = jnp.ones(8)
    closed = jax.make_jaxpr(f)(1.0)
    lowered = jax.jit(f).lower(1.0)
    mesh = jax.make_mesh((2,), ("x",))
    placed = jax.device_put(x, NamedSharding(mesh, PartitionSpec("x")))
    return {
        "ArrayImpl": [x],
        "ClosedJaxpr": [closed],
        "Jaxpr": [closed.jaxpr],
        "JaxprEqn": [closed.jaxpr.eqns[0]],
        "Var": [closed.jaxpr.invars[0]],
        "Literal": [closed.jaxpr.eqns[0].invars[1]],
        "Primitive": [closed.jaxpr.eqns[0].primitive],
        "Traced": [jax.jit(f).trace(1.0)],
        "Lowered": [lowered],
        "Compiled": [lowered.compile()],
        "Mesh": [mesh],
        "AbstractMesh": [mesh.abstract_mesh],
        "NamedSharding": [placed.sharding],
        "PartitionSpec": [PartitionSpec("x")],
        "Device": [jax.devices()[0]],
        "Shard": [placed.addressable_shards[0]],
        "ShapeDtypeStruct": [jax.ShapeDtypeStruct((2,), jnp.float32)],
        "PRNGKeyArray": [jax.random.key(0)],
        "SingleDeviceSharding": [x.sharding],
        "PjitFunction": [jax.jit(f)],
        # Python's own types: a method shardlab lacks is a feature, not a typo.
        "str": ["s"],
        "bytes": [b"b"],
        "list": [[]],
        "tuple": [()],
        "dict": [{}],
        "set": [set()],
        "int": [1],
        "float": [1.0],
    }


SIGNED = [
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.lax", "jax.random", "jax.nn", "jax.nn.initializers",
    "jax.tree_util", "jax.tree", "jax.scipy.special", "jax.debug", "jax.sharding", "flax.nnx", "optax",
    "optax.transforms", "numpy", "numpy.random", "numpy.testing",
]


def default_text(d):
    """The repr of a simple default value, or "?" when equality by repr would
    not be safe."""
    if d is None or isinstance(d, (bool, int, float, str)):
        return repr(d)
    return "?"


def signatures():
    """{"module.function": "name, name=default, ..., **"}: the parameters a
    function of the real libraries takes by keyword ("?" for a default that
    is not a simple value)."""
    import inspect

    out = {}
    for m in SIGNED:
        mod = importlib.import_module(m)
        for n in dir(mod):
            obj = getattr(mod, n, None)
            if n.startswith("_") or inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
                continue
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            params = []
            for p in sig.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL):
                    continue
                if p.kind == p.VAR_KEYWORD:
                    params.append("**")
                elif p.default is p.empty:
                    params.append(p.name)
                else:
                    params.append(f"{p.name}={default_text(p.default)}")
            if any(", " in q for q in params):
                params = [q if ", " not in q else q.split("=")[0] + "=?" for q in params]
            out[f"{m}.{n}"] = ", ".join(params)
    return out


def main():
    import flax
    import jax
    import numpy
    import optax

    names = {}
    for m in MODULES:
        mod = importlib.import_module(m)
        names[m] = sorted(n for n in dir(mod) if not n.startswith("_"))
    types = {
        key: sorted({n for o in objs for n in dir(o) if not n.startswith("_")})
        for key, objs in type_examples().items()
    }
    out = {
        "versions": {
            "jax": jax.__version__,
            "flax": flax.__version__,
            "optax": optax.__version__,
            "numpy": numpy.__version__,
            "python": sys.version.split()[0],
        },
        "modules": names,
        "types": types,
        "signatures": signatures(),
    }
    with open(os.path.join(ROOT, "src", "modules", "names.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
