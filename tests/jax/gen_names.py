"""Writes src/modules/names.json: the public names of every module shardlab
provides, as JAX 0.10.2, Flax 0.12.8, Optax 0.2.8 and NumPy 2.4.6 define
them. A program that uses one of these names where shardlab has none gets
`NotImplementedError: not supported by shardlab yet: jax.lax.scan`; a name
the real module does not have either is an AttributeError, as it is in JAX.

Usage, from the repository root:
    /path/to/venv/bin/python tests/jax/gen_names.py
"""

import importlib
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

MODULES = [
    "jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.nn.initializers",
    "jax.tree_util", "jax.tree", "jax.sharding", "jax.debug", "jax.experimental",
    "jax.experimental.shard_map", "jax.experimental.mesh_utils", "jax.scipy",
    "jax.scipy.special", "flax", "flax.linen", "flax.nnx", "optax", "numpy",
    "numpy.random", "numpy.testing",
]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    import flax
    import jax
    import numpy
    import optax

    names = {}
    for m in MODULES:
        mod = importlib.import_module(m)
        names[m] = sorted(n for n in dir(mod) if not n.startswith("_"))
    out = {
        "versions": {
            "jax": jax.__version__,
            "flax": flax.__version__,
            "optax": optax.__version__,
            "numpy": numpy.__version__,
            "python": sys.version.split()[0],
        },
        "modules": names,
    }
    with open(os.path.join(ROOT, "src", "modules", "names.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
