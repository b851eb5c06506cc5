"""Runs a page example in real JAX and writes, for every top-level name that
holds an array with a NamedSharding, where JAX puts it: the mesh, the spec,
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


def main(names):
    for name in names:
        path = os.path.join(ROOT, "www", "examples", name + ".py")
        with open(path) as f:
            source = f.read()
        scope = {"__name__": "__main__"}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, path, "exec"), scope)
        arrays = {k: layout(v) for k, v in scope.items()
                  if isinstance(v, jax.Array) and isinstance(v.sharding, NamedSharding)}
        out = os.path.join(ROOT, "tests", "fixtures", "layouts", name + ".json")
        with open(out, "w") as f:
            json.dump({"name": name, "arrays": arrays, "jax": jax.__version__}, f, indent=1)
            f.write("\n")
        print(f"{name}: {', '.join(arrays)}")


if __name__ == "__main__":
    main(sys.argv[1:])
