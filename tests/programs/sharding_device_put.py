# Placing arrays with device_put and reading where they live.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
data = jnp.arange(32.0).reshape(8, 4)

tiles = jax.device_put(data, NamedSharding(mesh, P("x", "y")))
print(tiles.sharding)
print(tiles.sharding.spec, tiles.sharding.shard_shape(tiles.shape), tiles.sharding.num_devices)
print(tiles.is_fully_replicated, tiles.committed, sorted(d.id for d in tiles.devices()))
for shard in tiles.addressable_shards:
    print(shard.device, shard.index, shard.replica_id, shard.data.sum())
print(tiles.addressable_shards[5])
print(jax.typeof(tiles))

rows = jax.device_put(data, NamedSharding(mesh, P("x")))
print(rows.sharding.spec, [s.replica_id for s in rows.addressable_shards])
print([s.index for s in rows.addressable_shards[3:5]])

everywhere = jax.device_put(data, NamedSharding(mesh, P()))
print(everywhere.sharding, everywhere.is_fully_replicated)
print(everywhere.sharding.shard_shape((8, 4)), everywhere.sharding.is_fully_replicated)

plain = jnp.ones(3)
print(plain.sharding, plain.committed, plain.is_fully_replicated)
third = jax.device_put(plain, jax.devices()[3])
print(third.sharding, [d.id for d in third.devices()], third.addressable_shards[0].device)
single = jax.sharding.SingleDeviceSharding(jax.devices()[6])
print(jax.device_put(np.arange(4), single).sharding)

tree = jax.device_put({"w": np.ones((4, 8)), "b": [np.zeros((2, 8))]}, NamedSharding(mesh, P(None, "y")))
print(jax.tree.map(lambda v: v.sharding.spec, tree))
pair = jax.device_put((data, data), (NamedSharding(mesh, P("x")), NamedSharding(mesh, P(None, "x"))))
print(pair[0].sharding.spec, pair[1].sharding.spec)

explicit = jax.make_mesh((2, 4), ("x", "y"))
with jax.set_mesh(explicit):
    placed = jax.device_put(np.arange(16.0).reshape(4, 4), P("y", "x"))
    print(placed.sharding)
    print(jax.typeof(placed), jax.typeof(placed).sharding)
    both = jax.device_put(np.arange(16.0), P(("x", "y")))
    print(jax.typeof(both), jax.typeof(both).sharding.spec)
    made = jnp.zeros((8, 4))
    print(made.sharding.spec, jnp.asarray(np.ones(3)).sharding.spec)

try:
    jax.device_put(np.arange(8.0), P("x"))
except ValueError as e:
    print("ValueError:", e)
try:
    jax.device_put(np.arange(6.0), NamedSharding(mesh, P("y")))
except ValueError as e:
    print("ValueError:", e)
result = [s.data for s in tiles.addressable_shards[:2]]
