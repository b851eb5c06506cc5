# Arrays that know where they live. jax.device_put lays an array out over a
# mesh; operations on it follow its sharding; jit's out_shardings says where
# a result goes. The device view draws every named sharded array tile by
# tile: which device holds which index ranges, and what is replicated.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('data', 'model'))

# Rows split over 'data', each half copied on the 4 devices of 'model'.
x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('data', None)))
print(jax.typeof(x), x.sharding.spec)
print([s.index for s in x.addressable_shards[:3]])

# Computation follows sharding: an elementwise op keeps x's layout.
y = jnp.sin(x) * 2.0
print(y.sharding.spec)

# jit places its result where out_shardings says.
col_sums = jax.jit(lambda a: a.sum(axis=0), out_shardings=NamedSharding(mesh, P('model')))
s = col_sums(y)
print(jax.typeof(s), s.sharding.spec)
print(s)

# A 3-D array on a 2x2x2 mesh: each device holds one 2x2x2 block.
cube_mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ('a', 'b', 'c'))
cube = jax.device_put(jnp.arange(64.0).reshape(4, 4, 4), NamedSharding(cube_mesh, P('a', 'b', 'c')))
print(cube.sharding.shard_shape(cube.shape))
result = {'col_sums': s, 'corner': cube[0, 0, 0]}
