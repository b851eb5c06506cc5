import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(8.0)
g = jax.shard_map(lambda v: jax.lax.all_gather(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
t = jax.shard_map(lambda v: jax.lax.all_gather(v, 'x', tiled=True), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
inv = jax.shard_map(lambda v: jax.lax.all_gather(v, 'x', tiled=True, to='invarying'), mesh=mesh, in_specs=P('x'), out_specs=P())(x)
print(g.shape, t.shape, inv)
result = [g, t, inv]
