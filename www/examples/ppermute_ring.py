# A ring: every device passes its block to the next one along 'x'.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:8]), ('x',))
n = mesh.shape['x']
ring = [(i, (i + 1) % n) for i in range(n)]
shift = jax.shard_map(lambda block: jax.lax.ppermute(block, 'x', perm=ring),
                      mesh=mesh, in_specs=P('x'), out_specs=P('x'))
x = jnp.arange(2.0 * n) * 10
result = shift(x)
print(result)
