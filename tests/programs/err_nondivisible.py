import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
f = jax.shard_map(lambda v: v * 2, mesh=mesh, in_specs=P('x'), out_specs=P('x'))
print("before")
result = f(jnp.arange(6.0))
