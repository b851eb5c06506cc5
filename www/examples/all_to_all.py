# all_to_all: each device splits its block along axis 0 and sends piece j to
# device j, which stacks what it gets along axis 1.
import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
x = jnp.arange(64.0).reshape(16, 4)
f = jax.shard_map(lambda block: jax.lax.all_to_all(block, 'x', 0, 1, tiled=True),
                  mesh=mesh, in_specs=P('x'), out_specs=P('x'))
result = f(x)
print(result.shape)
