"""Runs a page example in real JAX and writes, for every top-level name that
holds an array with a NamedSharding (or a list, tuple or dict of them), where
JAX puts it: the mesh, the spec,
`jax.typeof` and each device's index ranges (`devices_indices_map`). The
page tests compare the layout view against it.

Usage, from the repository root:
    /path/to/venv/bin/python tests/jax/gen_layouts.py NAME ...
(reads www/examples/NAME.py, writes tests/fixtures/layouts/NAME.json)
"""

import contextlib
import io
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ranges(index, shape):
    """[start, stop) per dimension of a tuple of slices."""
    out = []
    for s, n in zip(index, shape):
        start, stop, _ = s.indices(n)
        out.append([start, stop])
    return out


def layout(x):
    s = x.sharding
    mesh = s.mesh
    return {
        "shape": list(x.shape),
        "type_text": str(jax.typeof(x)),
        "spec": str(s.spec),
        "axis_names": list(mesh.axis_names),
        "mesh_shape": [int(n) for n in mesh.devices.shape],
        "tiles": {str(d.id): ranges(i, x.shape) for d, i in s.devices_indices_map(x.shape).items()},
    }


def collect(name, v, depth, out):
    """The sharded arrays in `v`, itself or down `depth` levels of lists,
    tuples and dicts, named as the program indexes them; scalars inside a
    container are left out, as shardlab's report leaves them out."""
    if isinstance(v, jax.Array):
        if isinstance(v.sharding, NamedSharding) and not (v.ndim == 0 and name.endswith("]")):
            out[name] = layout(v)
    elif depth > 0 and isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            collect(f"{name}[{i}]", x, depth - 1, out)
    elif depth > 0 and isinstance(v, dict):
        for k, x in v.items():
            if isinstance(k, str):
                collect(f"{name}['{k}']", x, depth - 1, out)
            elif isinstance(k, int):
                collect(f"{name}[{k}]", x, depth - 1, out)


def main(names):
    for name in names:
        path = os.path.join(ROOT, "www", "examples", name + ".py")
        with open(path) as f:
            source = f.read()
        scope = {"__name__": "__main__"}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, path, "exec"), scope)
        arrays = {}
        for k, v in scope.items():
            if not k.startswith("_"):
                collect(k, v, 2, arrays)
        out = os.path.join(ROOT, "tests", "fixtures", "layouts", name + ".json")
        with open(out, "w") as f:
            json.dump({"name": name, "arrays": arrays, "jax": jax.__version__}, f, indent=1)
            f.write("\n")
        print(f"{name}: {', '.join(arrays)}")


if __name__ == "__main__":
    main(sys.argv[1:])
