# Where the outputs of jitted functions live: propagated from the inputs,
# placed by in_shardings and out_shardings, and typed over explicit axes.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

values = np.arange(32.0).reshape(8, 4)


@jax.jit
def affine(a, b):
    print("tracing affine", jax.typeof(a), a)
    return a * 2 + b


@jax.jit
def summaries(a):
    return {"rows": a.sum(1), "cols": a.sum(0), "t": a.T, "same": a, "c": jnp.float32(3)}


def unused(a, b):
    return b * 2


def kept(a, b):
    return b * 3


for kind in (AxisType.Auto, AxisType.Explicit):
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(kind, kind))
    rows = jax.device_put(values, NamedSharding(mesh, P("x")))
    tiles = jax.device_put(values, NamedSharding(mesh, P("x", "y")))
    out = affine(rows, 1.0)
    print(kind, out.sharding.spec, out.committed, float(out.sum()))
    out = affine(rows, jnp.ones(4))
    print(out.sharding.spec, affine(tiles, 0.5).sharding.spec)
    for k, v in summaries(tiles).items():
        print(k, v.sharding.spec, jax.typeof(v))
    print(jax.jit(unused)(rows, jnp.ones(3)).sharding)
    print(jax.jit(kept, keep_unused=True)(rows, jnp.ones(3)).sharding.spec)
    inp = jax.jit(lambda a: a + 1, in_shardings=NamedSharding(mesh, P(None, "y")))(values)
    print(inp.sharding.spec, float(inp.sum()))
    outs = jax.jit(
        lambda a, b: (a * b, {"s": a.sum()}),
        in_shardings=(NamedSharding(mesh, P("x")), None),
        out_shardings=(NamedSharding(mesh, P(None, "y")), None),
    )(values, 2.0)
    print(outs[0].sharding.spec, outs[1]["s"].sharding.spec, float(outs[1]["s"]))
    with jax.set_mesh(mesh):
        o = jax.jit(lambda a: a - 1, out_shardings=P("y"))(rows)
        print(o.sharding.spec)
        o = jax.jit(lambda a: a * 3, in_shardings=P("x", "y"))(values)
        print(o.sharding.spec)

one = jax.device_put(np.ones(4), jax.devices()[3])
print(jax.jit(lambda a, b: a + b)(one, np.arange(4.0)).sharding)
print(jax.jit(lambda a: a.sum())(one).sharding)
print(jax.jit(lambda a: a)(jnp.ones(2)).committed)
result = jax.jit(lambda a: a.T @ a)(jnp.asarray(values))
