# shard_map with the mesh from the context, inferred in_specs, and the
# shardings of its results.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

auto = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
double = jax.shard_map(lambda v: v * 2, mesh=auto, in_specs=P("x"), out_specs=P("x"))
out = double(jnp.arange(16.0).reshape(8, 2))
print(out.sharding, out.sum())
colsum = jax.shard_map(lambda v: jax.lax.psum(v, "x"), mesh=auto,
                       in_specs=P("x", "y"), out_specs=P(None, "y"))
summed = colsum(jnp.arange(32.0).reshape(8, 4))
print(summed.sharding.spec, summed)
print((summed * 2).sharding.spec)

try:
    jax.shard_map(lambda v: v, in_specs=P("x"), out_specs=P("x"))(jnp.arange(8.0))
except ValueError as e:
    print("ValueError:", e)

grid = jax.make_mesh((2, 4), ("x", "y"))
with jax.set_mesh(grid):
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), P("x", "y"))
    inc = jax.shard_map(lambda v: v + 1, out_specs=P("x", "y"))
    r = inc(x)
    print(r.sharding, jax.typeof(r), float(r.sum()))

    @jax.shard_map(in_specs=P("x", "y"), out_specs=P("x", None))
    def sum_cols(block):
        return jax.lax.psum(block, "y")

    g = sum_cols(x)
    print(jax.typeof(g), g.sharding.spec, jnp.sum(g, axis=0))

    @jax.shard_map(in_specs=P("x"), out_specs=P("x", None))
    def wrong(block):
        return block
    try:
        wrong(x)
    except ValueError as e:
        print("ValueError:", e)
    try:
        jax.shard_map(lambda v: v, mesh=auto, in_specs=P(), out_specs=P())(x)
    except ValueError as e:
        print("ValueError:", e)
result = g
