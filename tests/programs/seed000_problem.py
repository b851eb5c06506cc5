import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec
from jax.experimental.shard_map import shard_map

def shard_map_psum(x):
    devices = np.array(jax.devices()[:1])
    mesh = Mesh(devices, ('data',))

    def per_shard(y):
        local = jnp.sum(y)
        return jax.lax.psum(local, axis_name='data')

    f = shard_map(per_shard, mesh=mesh,
                  in_specs=PartitionSpec('data'),
                  out_specs=PartitionSpec())
    return f(x)

print(shard_map_psum(jnp.array([1.0, 2.0, 3.0])))
result = [shard_map_psum(jnp.array([1.0, 2.0, 3.0])), shard_map_psum(jnp.arange(10.0) * 0.5)]
