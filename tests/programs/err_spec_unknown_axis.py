import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('x',))
result = jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('y'), out_specs=P('y'))(jnp.arange(8.0))
