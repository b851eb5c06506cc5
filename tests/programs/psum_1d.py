import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]), ('x',))
f = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
x = jnp.arange(16.0).reshape(8, 2)
print(f(x))
result = f(x)
