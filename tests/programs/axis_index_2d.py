import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
def body(v):
    i = jax.lax.axis_index('x')
    j = jax.lax.axis_index('y')
    k = jax.lax.axis_index(('x', 'y'))
    return v * 0 + jnp.stack([i, j, k]).astype(jnp.float32)[None, None, :]
x = jnp.zeros((2, 4, 3))
out = jax.shard_map(body, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(x)
print(out[..., 2])
result = out
