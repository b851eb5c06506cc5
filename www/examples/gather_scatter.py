# psum_scatter leaves each device one slice of the sum; all_gather puts the
# slices back together. Together they make a psum.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(32.0).reshape(4, 8)

def body(block):
    part = jax.lax.psum_scatter(block, 'x', scatter_dimension=1, tiled=True)
    return jax.lax.all_gather(part, 'x', axis=1, tiled=True)

y = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
ref = jax.shard_map(lambda b: jax.lax.psum(b, 'x'), mesh=mesh,
                    in_specs=P('x'), out_specs=P('x'))(x)
print(jnp.array_equal(y, ref))
result = y
