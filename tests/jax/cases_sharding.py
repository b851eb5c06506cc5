"""How NamedSharding lays arrays out on devices, and shard_map in/out specs."""

from fixturelib import program
from specs import mesh_line

DEVICE_PUT = [
    # mesh key, spec text, global shape
    ("1d", "P()", (4, 8)),
    ("1d", "P('x')", (8, 4)),
    ("1d", "P(None, 'x')", (4, 8)),
    ("2d", "P()", (8, 4)),
    ("2d", "P('x')", (8, 4)),
    ("2d", "P('y')", (8, 4)),
    ("2d", "P(None, 'y')", (8, 4)),
    ("2d", "P('x', 'y')", (8, 4)),
    ("2d", "P('y', 'x')", (8, 4)),
    ("2d", "P(('x', 'y'))", (8, 4)),
    ("2d", "P(('y', 'x'))", (8, 4)),
    ("2d", "P(('x', 'y'), None)", (8, 4)),
    ("2d", "P(None, ('y', 'x'))", (4, 8)),
    ("2d42", "P('x', 'y')", (8, 4)),
    ("2d42", "P('y', 'x')", (8, 4)),
    ("2d42", "P(('x', 'y'))", (8, 4)),
    ("2d42", "P(('y', 'x'))", (8, 4)),
    ("2d42", "P(None, 'y')", (8, 4)),
    ("3d", "P()", (4, 4, 2)),
    ("3d", "P('x', 'y', 'z')", (4, 4, 2)),
    ("3d", "P(('x', 'y'), 'z')", (4, 4, 2)),
    ("3d", "P('z', None, 'x')", (4, 4, 2)),
    ("3d", "P(('z', 'x', 'y'))", (8, 2, 2)),
    ("3d", "P(None, 'y')", (4, 4, 2)),
    ("1dev", "P()", (4, 2)),
    ("1dev", "P('x')", (4, 2)),
]

# Six specs on each mesh over a square (8, 8) array, so that rows and columns
# split alike; tests/sharding_jax.rs reads every device_put case.
SQUARE_SPECS = ["P('x')", "P(None, 'y')", "P(('x', 'y'))", "P(('y', 'x'))", "P('y', 'x')", "P()"]
SQUARE = [("1d", "P('x')"), ("1d", "P()")] + [
    (key, spec) for key in ("2d", "2d42", "3d") for spec in SQUARE_SPECS
]

IDENTITY = [
    ("1d", "P('x')", (8, 4)),
    ("2d", "P('x', 'y')", (8, 4)),
    ("2d", "P(('y', 'x'))", (8, 4)),
    ("2d", "P(None, 'y')", (8, 4)),
    ("2d42", "P('y', 'x')", (8, 4)),
    ("3d", "P(('x', 'y'), 'z')", (4, 4, 2)),
    ("1dev", "P('x')", (4, 2)),
]

RESHUFFLE = [
    # mesh key, in spec, out spec, global input shape
    ("2d", "P('x', 'y')", "P('y', 'x')", (8, 4)),
    ("2d", "P(('x', 'y'))", "P(('y', 'x'))", (8, 4)),
    ("1d", "P('x')", "P(None, 'x')", (8, 4)),
    ("3d", "P('x', 'y', 'z')", "P('z', 'y', 'x')", (4, 4, 2)),
]


def slug(spec):
    """P('x', ('y', 'z'), None) -> 'x_yz_n'; P() -> 'replicated'."""
    import re

    inner = spec[2:-1]
    inner = re.sub(r"\(([^()]*)\)", lambda m: m.group(1).replace("'", "").replace(", ", "").replace(",", ""), inner)
    parts = [p.strip().strip("'") for p in inner.split(",") if p.strip()]
    parts = ["n" if p == "None" else p for p in parts]
    return "_".join(parts) or "replicated"


def arange(shape):
    n = 1
    for s in shape:
        n *= s
    return "x = jnp.arange(%d, dtype=jnp.float32).reshape(%s)" % (n, ", ".join(map(str, shape)))


def cases():
    out = []
    for key, spec, shape in DEVICE_PUT:
        src = program(
            f"""
            {mesh_line(key)}
            {arange(shape)}
            result = jax.device_put(x, NamedSharding(mesh, {spec}))
            """
        )
        out.append(
            {
                "name": f"device_put_{key}_{slug(spec)}",
                "source": src,
                "inputs": ["x"],
                "per_device": "all",
                "params": {"spec": spec},
            }
        )
    for key, spec in SQUARE:
        src = program(
            f"""
            {mesh_line(key)}
            {arange((8, 8))}
            result = jax.device_put(x, NamedSharding(mesh, {spec}))
            """
        )
        out.append(
            {
                "name": f"device_put_8x8_{key}_{slug(spec)}",
                "source": src,
                "inputs": ["x"],
                "per_device": "all",
                "params": {"spec": spec},
            }
        )
    # jax.make_mesh gives Explicit axes in this JAX version; the layout is the same.
    src = program(
        f"""
        mesh = jax.make_mesh((2, 4), ('x', 'y'))
        {arange((8, 4))}
        result = jax.device_put(x, NamedSharding(mesh, P('x', 'y')))
        """
    )
    out.append(
        {
            "name": "device_put_make_mesh_explicit_x_y",
            "source": src,
            "inputs": ["x"],
            "per_device": "all",
            "params": {"spec": "P('x', 'y')"},
        }
    )
    for key, spec, shape in IDENTITY:
        src = program(
            f"""
            {mesh_line(key)}
            {arange(shape)}
            f = jax.shard_map(lambda b: b, mesh=mesh, in_specs={spec}, out_specs={spec})
            result = f(x)
            """
        )
        out.append(
            {
                "name": f"shard_map_identity_{key}_{slug(spec)}",
                "source": src,
                "inputs": ["x"],
                "per_device": "all",
                "params": {"in_specs": spec, "out_specs": spec},
            }
        )
    for key, ins, outs, shape in RESHUFFLE:
        src = program(
            f"""
            {mesh_line(key)}
            {arange(shape)}
            f = jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs={ins}, out_specs={outs})
            result = f(x)
            """
        )
        out.append(
            {
                "name": f"shard_map_respec_{key}_{slug(ins)}_to_{slug(outs)}",
                "source": src,
                "inputs": ["x"],
                "per_device": "all",
                "params": {"in_specs": ins, "out_specs": outs},
            }
        )
    return out
