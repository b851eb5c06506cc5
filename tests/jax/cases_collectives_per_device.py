"""Each collective with a different operand on every device, one result per device.

The operand on the device at mesh position d is ``(d * 37 + i * 11) % 17 - 8``
for element i (row-major over the local shape), as float32 or int32. The
global array stacks these blocks over every mesh axis (``P(*mesh axes)``), so
the body sees its own block, and the result is written back the same way:
``result[d]`` is what the device at position d returned. tests/collectives.rs
runs the engine's collectives on these operands and compares every device.
"""

from fixturelib import program
from specs import MESHES, axis_text, mesh_line, size_of

# (tag, mesh key, axes the collective runs over)
CONFIGS = [
    ("1d_over_x", "1d", "x"),
    ("2d_over_x", "2d", "x"),
    ("2d_over_y", "2d", "y"),
    ("2d_over_xy", "2d", ("x", "y")),
    ("2d_over_yx", "2d", ("y", "x")),
    ("2d42_over_y", "2d42", "y"),
    ("2d42_over_xy", "2d42", ("x", "y")),
    ("2d42_over_yx", "2d42", ("y", "x")),
    ("3d_over_y", "3d", "y"),
    ("3d_over_xz", "3d", ("x", "z")),
    ("3d_over_zx", "3d", ("z", "x")),
    ("3d_over_zyx", "3d", ("z", "y", "x")),
]


def ops(p):
    """(name, dtype, local shape, call text with AXES for the axes, params) for a group of p."""
    return [
        ("psum", "float32", (3,), "jax.lax.psum(v, AXES)", {"op": "psum"}),
        ("psum", "int32", (2,), "jax.lax.psum(v, AXES)", {"op": "psum"}),
        ("pmax", "float32", (3,), "jax.lax.pmax(v, AXES)", {"op": "pmax"}),
        ("pmin", "int32", (3,), "jax.lax.pmin(v, AXES)", {"op": "pmin"}),
        ("pmean", "float32", (3,), "jax.lax.pmean(v, AXES)", {"op": "pmean"}),
        ("pmean", "int32", (2,), "jax.lax.pmean(v, AXES)", {"op": "pmean"}),
        (
            "all_gather_axis0_stacked",
            "float32",
            (2,),
            "jax.lax.all_gather(v, AXES, axis=0, tiled=False)",
            {"op": "all_gather", "axis": 0, "tiled": False},
        ),
        (
            "all_gather_axis1_stacked",
            "float32",
            (2, 2),
            "jax.lax.all_gather(v, AXES, axis=1, tiled=False)",
            {"op": "all_gather", "axis": 1, "tiled": False},
        ),
        (
            "all_gather_axis1_tiled",
            "int32",
            (2, 2),
            "jax.lax.all_gather(v, AXES, axis=1, tiled=True)",
            {"op": "all_gather", "axis": 1, "tiled": True},
        ),
        (
            "psum_scatter_dim0_untiled",
            "float32",
            (p, 2),
            "jax.lax.psum_scatter(v, AXES, scatter_dimension=0, tiled=False)",
            {"op": "psum_scatter", "scatter_dimension": 0, "tiled": False},
        ),
        (
            "psum_scatter_dim1_tiled",
            "int32",
            (2, 2 * p),
            "jax.lax.psum_scatter(v, AXES, scatter_dimension=1, tiled=True)",
            {"op": "psum_scatter", "scatter_dimension": 1, "tiled": True},
        ),
        (
            # Every device but the last sends to the next; the first receives nothing.
            "ppermute_chain",
            "float32",
            (2,),
            "jax.lax.ppermute(v, AXES, perm=%r)" % ([(i, i + 1) for i in range(p - 1)],),
            {"op": "ppermute", "perm": [[i, i + 1] for i in range(p - 1)]},
        ),
        (
            "all_to_all_split0_concat1_untiled",
            "float32",
            (p, 2),
            "jax.lax.all_to_all(v, AXES, 0, 1, tiled=False)",
            {"op": "all_to_all", "split_axis": 0, "concat_axis": 1, "tiled": False},
        ),
        (
            "all_to_all_split1_concat0_untiled",
            "int32",
            (2, p),
            "jax.lax.all_to_all(v, AXES, 1, 0, tiled=False)",
            {"op": "all_to_all", "split_axis": 1, "concat_axis": 0, "tiled": False},
        ),
        (
            "all_to_all_split0_concat1_tiled",
            "float32",
            (2 * p, 2),
            "jax.lax.all_to_all(v, AXES, 0, 1, tiled=True)",
            {"op": "all_to_all", "split_axis": 0, "concat_axis": 1, "tiled": True},
        ),
        # The operand is passed in but not used.
        ("axis_index", "int32", (1,), "jax.lax.axis_index(AXES)", {"op": "axis_index"}),
    ]


def shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def make(name, key, ax, dtype, local, call, params):
    shape, names = MESHES[key]
    n = 1
    for s in shape:
        n *= s
    k = 1
    for s in local:
        k *= s
    spec = "P(%s)" % ", ".join(repr(a) for a in names)
    ones = shape_text((1,) * len(names))
    src = program(
        f"""
        {mesh_line(key)}
        spec = {spec}
        local = {shape_text(local)}
        # Row d: the operand of the device at mesh position d.
        x = np.array([[(d * 37 + i * 11) % 17 - 8 for i in range({k})] for d in range({n})], dtype=np.{dtype})
        x = jax.device_put(x.reshape({shape_text(shape)} + local), NamedSharding(mesh, spec))

        def body(b):
            v = b.reshape(local)
            r = {call.replace("AXES", axis_text(ax))}
            return r.reshape({ones} + r.shape)

        out = jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=spec)(x)
        # Row d: the result on the device at mesh position d.
        result = np.asarray(out).reshape(({n},) + out.shape[{len(names)}:])
        """
    )
    p = {"op": params["op"], "axis_name": axis_text(ax), "local": list(local)}
    p.update(params)
    return {"name": name, "source": src, "inputs": ["x"], "params": p}


def cases():
    out = []
    for tag, key, ax in CONFIGS:
        for op, dtype, local, call, params in ops(size_of(key, ax)):
            out.append(make(f"{op}_{dtype}_{tag}", key, ax, dtype, local, call, params))
    return out

