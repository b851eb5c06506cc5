"""Collectives inside jax.shard_map on 1-, 2- and 3-D meshes."""

from fixturelib import program
from specs import (
    MESHES,
    axes_of,
    axis_text,
    global_shape,
    mesh_line,
    remove_axes,
    size_of,
    spec_text,
)

# (tag, mesh key, axis the collective runs over)
CONFIGS = [
    ("1d_over_x", "1d", "x"),
    ("2d_over_x", "2d", "x"),
    ("2d_over_y", "2d", "y"),
    ("2d_over_xy", "2d", ("x", "y")),
    ("2d_over_yx", "2d", ("y", "x")),
    ("3d_over_xz", "3d", ("x", "z")),
    ("3d_over_y", "3d", "y"),
]

# Sharding of the input for elementwise-style collectives: each mesh axis on
# its own array dimension, and a local block of this shape.
FULL = {
    "1d": (["x"], (2,)),
    "2d": (["x", "y"], (2, 2)),
    "3d": (["x", "y", "z"], (1, 1, 2)),
}


def all_axes_spec(key):
    """Every mesh axis on dimension 0, in mesh order."""
    names = MESHES[key][1]
    return [names[0] if len(names) == 1 else tuple(names), None]


def shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def make(name, key, in_spec, out_spec, gshape, body_expr, params, data="arange", dtype="float32"):
    n = 1
    for s in gshape:
        n *= s
    if data == "arange":
        xline = "x = jnp.arange(%d, dtype=jnp.%s)" % (n, dtype)
        if len(gshape) > 1:
            xline += ".reshape%s" % shape_text(gshape)
    else:  # small random integers, so max/min are not always on the last device
        xline = (
            "x = jnp.asarray(np.random.default_rng(%d).integers(-9, 10, size=%s)"
            ".astype(np.%s))" % (data, shape_text(gshape), dtype)
        )
    src = program(
        f"""
        {mesh_line(key)}
        {xline}

        def body(b):
            return {body_expr}

        f = jax.shard_map(body, mesh=mesh, in_specs={spec_text(in_spec)}, out_specs={spec_text(out_spec)})
        result = f(x)
        """
    )
    p = {"in_specs": spec_text(in_spec), "out_specs": spec_text(out_spec)}
    p.update(params)
    return {"name": name, "source": src, "inputs": ["x"], "params": p}


def reductions():
    out = []
    for tag, key, ax in CONFIGS:
        spec, block = FULL[key]
        gshape = global_shape(key, spec, block)
        out_spec = remove_axes(spec, axes_of(ax))
        for i, op in enumerate(["psum", "pmean", "pmax", "pmin"]):
            data = "arange" if op in ("psum", "pmean") else 10 + i
            out.append(
                make(
                    f"{op}_{tag}",
                    key,
                    spec,
                    out_spec,
                    gshape,
                    f"jax.lax.{op}(b, {axis_text(ax)})",
                    {"op": op, "axis_name": axis_text(ax)},
                    data=data,
                )
            )
    return out


def index_and_size():
    out = []
    for tag, key, ax in CONFIGS:
        src = program(
            f"""
            {mesh_line(key)}

            def body():
                return jnp.reshape(jax.lax.axis_index({axis_text(ax)}), (1,))

            f = jax.shard_map(body, mesh=mesh, in_specs=(), out_specs=P({axis_text(ax)}))
            result = f()
            """
        )
        out.append(
            {
                "name": f"axis_index_{tag}",
                "source": src,
                "inputs": [],
                "params": {"op": "axis_index", "axis_name": axis_text(ax), "out_specs": f"P({axis_text(ax)})"},
            }
        )
        src = program(
            f"""
            {mesh_line(key)}

            def body():
                return jnp.reshape(jax.lax.psum(1, {axis_text(ax)}), (1,))

            f = jax.shard_map(body, mesh=mesh, in_specs=(), out_specs=P())
            result = f()
            """
        )
        out.append(
            {
                "name": f"psum_one_{tag}",
                "source": src,
                "inputs": [],
                "params": {"op": "psum(1)", "axis_name": axis_text(ax), "out_specs": "P()"},
            }
        )
    return out


def all_gathers():
    """all_gather with to='invarying' (the result is replicated over the axis)."""
    out = []
    variants = [(0, False), (0, True)]
    extra = {"1d_over_x", "2d_over_y", "3d_over_xz"}
    for tag, key, ax in CONFIGS:
        spec, block = FULL[key]
        gshape = global_shape(key, spec, block)
        rest = remove_axes(spec, axes_of(ax))
        vs = variants + ([(1, False), (1, True)] if tag in extra else [])
        for axis, tiled in vs:
            if key == "1d" and axis == 1:
                # needs a rank-2 block
                sp, gs = ["x", None], (16, 2)
                rs = remove_axes(sp, axes_of(ax))
            else:
                sp, gs, rs = spec, gshape, rest
            if tiled:
                out_spec = rs
            else:
                out_spec = list(rs)
                out_spec.insert(axis, None)
            out.append(
                make(
                    f"all_gather_axis{axis}_{'tiled' if tiled else 'stacked'}_{tag}",
                    key,
                    sp,
                    out_spec,
                    gs,
                    f"jax.lax.all_gather(b, {axis_text(ax)}, axis={axis}, tiled={tiled}, to='invarying')",
                    {"op": "all_gather", "axis_name": axis_text(ax), "axis": axis, "tiled": tiled, "to": "invarying"},
                )
            )
    # The default to='varying': the result still counts as varying over the
    # gathered axis, so out_specs must name it and the copies are concatenated.
    for tag, key, ax, sp, gs, tiled in [
        ("1d_over_x", "1d", "x", ["x"], (8,), True),
        ("1d_over_x", "1d", "x", ["x"], (8,), False),
        ("2d_over_y", "2d", "y", ["x", "y"], (2, 4), True),
    ]:
        out.append(
            make(
                f"all_gather_default_to_axis0_{'tiled' if tiled else 'stacked'}_{tag}",
                key,
                sp,
                sp,
                gs,
                f"jax.lax.all_gather(b, {axis_text(ax)}, axis=0, tiled={tiled})",
                {"op": "all_gather", "axis_name": axis_text(ax), "axis": 0, "tiled": tiled, "to": "varying"},
            )
        )
    return out


def order_axes(key, ax):
    """Mesh axes not in ``ax`` (mesh order) followed by ``ax``."""
    names = MESHES[key][1]
    a = axes_of(ax)
    return tuple(n for n in names if n not in a) + a


def joined(axes):
    return axes[0] if len(axes) == 1 else tuple(axes)


def psum_scatters():
    out = []
    full = {"1d_over_x", "2d_over_y", "2d_over_xy"}
    for tag, key, ax in CONFIGS:
        n = size_of(key, ax)
        in_spec = all_axes_spec(key)
        vs = [(0, True), (1, False)]
        if tag in full:
            vs = [(0, True), (0, False), (1, True), (1, False)]
        for sd, tiled in vs:
            block = (n, 1) if sd == 0 else (1, n)
            gs = global_shape(key, in_spec, block)
            order = order_axes(key, ax)
            if not tiled:
                out_spec = [joined(order)]
            elif sd == 0:
                out_spec = in_spec
            else:
                rest = order[: len(order) - len(axes_of(ax))]
                out_spec = [joined(rest) if rest else None, joined(axes_of(ax))]
            out.append(
                make(
                    f"psum_scatter_dim{sd}_{'tiled' if tiled else 'untiled'}_{tag}",
                    key,
                    in_spec,
                    out_spec,
                    gs,
                    f"jax.lax.psum_scatter(b, {axis_text(ax)}, scatter_dimension={sd}, tiled={tiled})",
                    {"op": "psum_scatter", "axis_name": axis_text(ax), "scatter_dimension": sd, "tiled": tiled},
                )
            )
    return out


def ppermutes():
    out = []
    want = {
        "1d_over_x": ["ring", "reverse", "partial"],
        "2d_over_x": ["ring"],
        "2d_over_y": ["ring", "reverse", "partial"],
        "2d_over_xy": ["ring"],
        "2d_over_yx": ["ring"],
        "3d_over_xz": ["ring"],
        "3d_over_y": ["partial"],
    }
    for tag, key, ax in CONFIGS:
        n = size_of(key, ax)
        for kind in want[tag]:
            if kind == "ring":
                perm = [(i, (i + 1) % n) for i in range(n)]
            elif kind == "reverse":
                perm = [(i, n - 1 - i) for i in range(n)]
            else:
                perm = [(0, 1)] if n == 2 else [(0, 2), (3, 1)]
            in_spec = all_axes_spec(key)
            gs = global_shape(key, in_spec, (2,))
            out.append(
                make(
                    f"ppermute_{kind}_{tag}",
                    key,
                    in_spec,
                    in_spec,
                    gs,
                    f"jax.lax.ppermute(b, {axis_text(ax)}, perm={perm!r})",
                    {"op": "ppermute", "axis_name": axis_text(ax), "perm": [list(p) for p in perm]},
                )
            )
    return out


def all_to_alls():
    out = []
    tags = {"1d_over_x", "2d_over_y", "2d_over_xy", "3d_over_xz", "2d_over_x"}
    variants = [(0, 1, True), (1, 0, True), (0, 0, False), (0, 1, False)]
    for tag, key, ax in CONFIGS:
        if tag not in tags:
            continue
        n = size_of(key, ax)
        in_spec = all_axes_spec(key)
        for split, concat, tiled in variants:
            if tag == "2d_over_x" and (split, concat, tiled) != (0, 1, True):
                continue
            block = (n, 1) if split == 0 else (1, n)
            gs = global_shape(key, in_spec, block)
            out.append(
                make(
                    f"all_to_all_split{split}_concat{concat}_{'tiled' if tiled else 'untiled'}_{tag}",
                    key,
                    in_spec,
                    in_spec,
                    gs,
                    f"jax.lax.all_to_all(b, {axis_text(ax)}, {split}, {concat}, tiled={tiled})",
                    {
                        "op": "all_to_all",
                        "axis_name": axis_text(ax),
                        "split_axis": split,
                        "concat_axis": concat,
                        "tiled": tiled,
                    },
                )
            )
    return out


def cases():
    return reductions() + index_and_size() + all_gathers() + psum_scatters() + ppermutes() + all_to_alls()
