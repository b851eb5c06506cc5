import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
A = jnp.arange(32.0).reshape(4, 8) / 10
B = jnp.arange(24.0).reshape(8, 3) / 10
def body(a, b):
    return jax.lax.psum(a @ b, 'y')
C = jax.shard_map(body, mesh=mesh, in_specs=(P('x', 'y'), P('y', None)), out_specs=P('x', None))(A, B)
print(C)
print(jnp.allclose(C, A @ B))
result = C
