import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
x = jnp.arange(32.0).reshape(4, 8)
rows = jax.shard_map(lambda v: jax.lax.psum(v, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))(x)
both = jax.shard_map(lambda v: jax.lax.psum(v, ('x', 'y')), mesh=mesh, in_specs=P('x', 'y'), out_specs=P())(x)
cols = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y'))(x)
print(rows)
print(both)
print(cols)
result = [rows, both, cols]
