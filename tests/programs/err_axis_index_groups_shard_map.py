# Under shard_map with check_vma=True JAX refuses psum's axis_index_groups.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ('x',))


def body(v):
    return lax.psum(v, 'x', axis_index_groups=[[0, 1], [2, 3]])


f = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))
result = f(jnp.arange(8.0))
