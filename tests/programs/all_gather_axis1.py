import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:2]), ('x',))
x = jnp.arange(12.0).reshape(4, 3)
g = jax.shard_map(lambda v: jax.lax.all_gather(v, 'x', axis=1), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
print(g.shape)
print(g)
result = g
