import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))
x = jnp.arange(64.0).reshape(4, 4, 4)
def body(v):
    s = jax.lax.psum(v, 'c')
    m = jax.lax.pmax(s, ('a', 'b'))
    return m
y = jax.shard_map(body, mesh=mesh, in_specs=P('a', 'b', 'c'), out_specs=P(None, None, None), check_vma=False)(x)
print(y.shape)
z = jax.shard_map(lambda v: jax.lax.ppermute(v, 'b', perm=[(0, 1), (1, 0)]), mesh=mesh, in_specs=P('a', 'b', 'c'), out_specs=P('a', 'b', 'c'))(x)
result = [y, z]
