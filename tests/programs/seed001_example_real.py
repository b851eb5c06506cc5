from jax.experimental.shard_map import shard_map
from jax.sharding import Mesh, PartitionSpec as P
devices = mesh_utils.create_device_mesh((num_shards,))
mesh = Mesh(devices, axis_names=("data",))
def step(local_x):
    # Inside this body, local_x has shape (batch_per_device, ...).
    return model.apply(params, local_x)
sharded_step = shard_map(step, mesh,
                         in_specs=P("data", None),
                         out_specs=P("data", None))
out = sharded_step(global_x) # global_x is (full_batch, ...)
result = out
