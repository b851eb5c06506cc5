import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(16.0)
f = jax.shard_map(lambda v: jax.lax.psum_scatter(jnp.tile(v, 1) if False else jnp.concatenate([v, v]), 'x', tiled=True), mesh=mesh, in_specs=P('x'), out_specs=P('x'))
y = f(x)
print(y)
g = jax.shard_map(lambda v: jax.lax.psum_scatter(v.reshape(4, 1), 'x', scatter_dimension=0), mesh=mesh, in_specs=P('x'), out_specs=P('x'))
z = g(x)
print(z)
result = [y, z]
