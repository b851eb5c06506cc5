import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
x = jnp.arange(16.0).reshape(2, 8)
a = jax.shard_map(lambda v: jax.lax.all_gather(v, 'y', axis=1, tiled=True), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None), check_vma=False)(x)
b = jax.shard_map(lambda v: jax.lax.all_gather(v, ('x', 'y'), tiled=True), mesh=mesh, in_specs=P(None, ('x', 'y')), out_specs=P(), check_vma=False)(x)
print(a)
print(b)
result = [a, b]
