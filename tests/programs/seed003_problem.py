import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec
from jax.experimental.shard_map import shard_map

def shard_map_vs_vmap(x):
    devices = np.array(jax.devices()[:1])
    mesh = Mesh(devices, ('data',))

    def per_shard(rows):
        return jax.vmap(lambda r: jnp.sum(r ** 2))(rows)

    sm_result = shard_map(per_shard, mesh=mesh,
                          in_specs=PartitionSpec('data'),
                          out_specs=PartitionSpec('data'))(x)
    vmap_result = jax.vmap(lambda r: jnp.sum(r ** 2))(x)
    return jnp.stack([sm_result, vmap_result], axis=0)

out = shard_map_vs_vmap(jnp.array([[1.0, 0.0], [0.0, 1.0]]))
print(out)
result = [out, shard_map_vs_vmap(jnp.arange(12.0).reshape(4, 3))]
