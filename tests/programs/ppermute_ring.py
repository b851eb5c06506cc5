import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]), ('x',))
n = 8
perm = [(i, (i + 1) % n) for i in range(n)]
f = jax.shard_map(lambda v: jax.lax.ppermute(v, 'x', perm=perm), mesh=mesh, in_specs=P('x'), out_specs=P('x'))
x = jnp.arange(8.0) * 10
print(f(x))
half = jax.shard_map(lambda v: jax.lax.ppermute(v, 'x', perm=[(0, 1), (2, 3)]), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x + 1)
print(half)
result = [f(x), half]
