import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(32.0).reshape(4, 8)
def body(v):
    s = jax.lax.psum_scatter(v, 'x', scatter_dimension=1, tiled=True)
    return jax.lax.all_gather(s, 'x', axis=1, tiled=True)
y = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
ref = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
print(jnp.array_equal(y, ref))
print(y[0])
result = y
