import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec
from jax.experimental.shard_map import shard_map

devices = np.array(jax.devices()[:8])
mesh = Mesh(devices, ('data',))

def per_shard(y):
    return jax.lax.psum(jnp.sum(y), axis_name='data')

f = shard_map(per_shard, mesh=mesh,
              in_specs=PartitionSpec('data'),
              out_specs=PartitionSpec())
print(f(jnp.arange(16.0)))
result = f(jnp.arange(16.0))
