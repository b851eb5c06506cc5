import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec
from jax.experimental.shard_map import shard_map

x = jnp.array([[1.0, 2.0], [3.0, 4.0]]) # shape (2, 2)

# vmap: per-row max
vmap_result = jax.vmap(jnp.max)(x) # [2., 4.]

# shard_map: same per-row max
devices = np.array(jax.devices()[:1])
mesh = Mesh(devices, ('data',))

def per_shard(rows):
    return jax.vmap(jnp.max)(rows)

sm_result = shard_map(per_shard, mesh=mesh,
                      in_specs=PartitionSpec('data'),
                      out_specs=PartitionSpec('data'))(x)

jnp.allclose(sm_result, vmap_result) # True
print(sm_result, vmap_result, jnp.allclose(sm_result, vmap_result))
result = [sm_result, vmap_result]
