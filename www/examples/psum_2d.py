# A 2-D mesh: every device holds one block of x. psum over 'y' adds the
# blocks of one row of the mesh, so the result still varies over 'x'.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
x = jnp.arange(32.0).reshape(4, 8)
row_sums = jax.shard_map(lambda block: jax.lax.psum(block, 'y'), mesh=mesh,
                         in_specs=P('x', 'y'), out_specs=P('x', None))
result = row_sums(x)
print(result)
