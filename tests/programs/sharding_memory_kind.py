# Memory kinds of a NamedSharding: device memory and host memory. Values are
# the same in each; the sharding and the type record where an array lives.
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

grid = jax.make_mesh((4,), ("d",))
on_device = NamedSharding(grid, P("d"))
print(repr(on_device.memory_kind), on_device)
pinned = on_device.with_memory_kind("pinned_host")
print(pinned, pinned.memory_kind, pinned == on_device, pinned == on_device.with_memory_kind("pinned_host"))
print(NamedSharding(grid, P(), memory_kind="unpinned_host"))
print(NamedSharding(grid, P("d"), memory_kind="device") == on_device)
try:
    NamedSharding(grid, P(), memory_kind="hbm")
except ValueError as e:
    print("ValueError:", e)

v = jax.device_put(np.arange(12.0).reshape(4, 3), pinned)
print(v.sharding.memory_kind, jax.typeof(v), repr(jax.typeof(v)))
print(v)
w = v * 3 - 1
print(w.sharding, jax.typeof(w))
back = jax.device_put(v, on_device)
print(back.sharding.memory_kind, jax.typeof(back))
moved = jax.jit(lambda x: x + 1.5, out_shardings=pinned)(jnp.ones((8, 2)))
print(moved.sharding.memory_kind, moved)
kept = jax.jit(lambda x: jnp.sin(x) * 0 + x)(v)
print(kept.sharding)
result = w
