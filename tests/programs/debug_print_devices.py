# jax.debug.print of traced values: 0-d values format as Python scalars
# (all float64 digits of a float32), arrays as NumPy prints them; inside a
# shard_map body every device prints its own block, in device order.
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P


@jax.jit
def scaled(x):
    jax.debug.print("sum={} first={f}", jnp.sum(x), f=x[0], ordered=True)
    jax.debug.print("whole {}", x * 3.0, ordered=True)
    return x * 3.0


out = scaled(jnp.array([0.1, 0.7, 2.5]))
jax.debug.print("top level {:.3f} {}", jnp.float32(1.0 / 3.0), jnp.int32(7))

mesh = Mesh(np.array(jax.devices()[:4]), ("d",))


def body(block):
    jax.debug.print("block {}", block)
    return jnp.cos(block)


result = jax.shard_map(body, mesh=mesh, in_specs=P("d"), out_specs=P("d"))(
    jnp.arange(8.0)
)
