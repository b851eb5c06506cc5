# Printing inside a shard_map called at top level shows each device's block,
# with its device and mesh coordinates; jax.typeof shows the per-device type
# and the axes the value varies over.
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 2), ('a', 'b'))
jax.set_mesh(mesh)


@jax.shard_map(in_specs=P('a', 'b'), out_specs=P('a'))
def f(x):
    print(x)
    print(jax.typeof(x))
    y = jax.lax.psum(x * 2, 'b')
    print(y)
    print(jax.typeof(y), jax.typeof(y).manual_axis_type.varying)
    return y


out = f(jax.device_put(jnp.arange(16.0).reshape(4, 4), P('a', 'b')))
print(out)


@jax.jit
def g(x):
    return jax.shard_map(lambda v: v + 1, in_specs=P('a'), out_specs=P('a'))(x)


print(g(jax.device_put(jnp.arange(4.0), P('a'))))
result = out
