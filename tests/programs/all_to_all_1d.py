import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(64.0).reshape(16, 4)
f = jax.shard_map(lambda v: jax.lax.all_to_all(v, 'x', 0, 1, tiled=True), mesh=mesh, in_specs=P('x'), out_specs=P('x'))
y = f(x)
print(y.shape)
result = y
