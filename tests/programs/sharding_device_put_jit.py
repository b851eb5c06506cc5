import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

# device_put inside jit stages an equation and places its result.
grid = jax.make_mesh((4,), ("d",))
split = NamedSharding(grid, P("d"))
v = jnp.arange(8.0) / 2


def scaled(a):
    return jax.device_put(a, split) * 3.0


print(jax.make_jaxpr(scaled)(v))
out = jax.jit(scaled)(v)
print(out, out.sharding)
print(jax.make_jaxpr(lambda a, b: jax.device_put((a, b), split))(v, v))
print(jax.make_jaxpr(lambda a: jax.device_put(a, jax.devices()[2]))(v))
print(jax.make_jaxpr(lambda a: jax.device_put(a, split.with_memory_kind("pinned_host")))(v))
print(jax.jit(lambda a: jax.device_put(a, split.with_memory_kind("pinned_host")) - 1)(v).sharding)
print(jax.jit(lambda a: jax.device_put(a, SingleDeviceSharding(jax.devices()[6])))(v).sharding)
print(jax.jit(lambda a: jax.device_put(a, jax.devices()[6]))(v).sharding)
print(jax.jit(lambda a: jnp.cos(jax.device_put(a, split)).sum())(v).sharding)
with jax.set_mesh(grid):
    print(jax.jit(lambda a: jax.device_put(a, P("d")) + 1)(v).sharding)
print(jax.make_jaxpr(lambda a, t: jax.jvp(lambda u: jax.device_put(u, split), (a,), (t,)))(v, v))

# Its targets are devices of the computation.
everything = jax.make_mesh((8,), ("d",))
low = jax.make_mesh((4,), ("d",), devices=everything.devices[:4])
high = jax.make_mesh((4,), ("d",), devices=everything.devices[4:])
on_low = jax.device_put(v, NamedSharding(low, P("d")))
for fn, args in [
    (lambda a: jax.device_put(a, NamedSharding(high, P("d"))), (on_low,)),
    (lambda a: jax.device_put(jax.device_put(a, NamedSharding(low, P())), NamedSharding(high, P())), (v,)),
    (lambda a: jax.device_put(a, SingleDeviceSharding(jax.devices()[7])), (on_low,)),
]:
    try:
        jax.jit(fn)(*args)
    except ValueError as e:
        msg = str(e)
        print(msg.split(" at ")[0], msg.split("/")[-1])
result = jax.jit(lambda a: jax.device_put(a, NamedSharding(high, P("d"))) * 2)(v)
