import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:4]), ('data',))
f = jax.shard_map(lambda y: jax.lax.psum(jnp.sum(y), axis_name='batch'), mesh=mesh, in_specs=P('data'), out_specs=P())
result = f(jnp.arange(8.0))
