# Where the results of operations on placed arrays live.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, AxisType

auto = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
explicit = jax.make_mesh((2, 4), ("x", "y"))
values = np.arange(32.0).reshape(8, 4)
for mesh in (auto, explicit):
    print(mesh.axis_types)
    rows = jax.device_put(values, NamedSharding(mesh, P("x", None)))
    tiles = jax.device_put(values, NamedSharding(mesh, P("x", "y")))
    same = jax.device_put(values, NamedSharding(mesh, P()))
    cols = jax.device_put(np.arange(4.0), NamedSharding(mesh, P("y")))
    print((rows * 2).sharding.spec, jnp.exp(rows).sharding.spec, (rows - 1.5).sharding.spec)
    print((tiles + same).sharding.spec, (same * 3).sharding.spec, (tiles + cols).sharding.spec)
    print(jnp.sum(tiles, axis=0).sharding.spec, jnp.max(tiles, axis=1).sharding.spec)
    print(jnp.sum(tiles).sharding.spec, jnp.argmin(tiles, axis=0).sharding.spec)
    print(tiles.T.sharding.spec, (tiles > 3).sharding.spec, tiles.astype(jnp.int32).sharding.spec)
    print(jnp.where(tiles > 10, tiles, 0.0).sharding.spec)
    print(jax.typeof(tiles * tiles), jax.typeof(jnp.mean(tiles, axis=0)), jax.typeof(tiles.T))
    out = rows @ jax.device_put(np.ones((4, 8)), NamedSharding(mesh, P(None, "y")))
    print(out.sharding.spec, jax.typeof(out), float(out.sum()))
    print(float(jnp.sum(tiles * cols)))
try:
    t = jax.device_put(values, NamedSharding(explicit, P("x", "y")))
    t @ t.T
except Exception as e:
    print(e)
result = jnp.sum(jax.device_put(values, NamedSharding(auto, P("x", "y"))), axis=0)
