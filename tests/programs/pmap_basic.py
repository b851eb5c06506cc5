import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
x = jnp.arange(8.0).reshape(4, 2)
f = jax.pmap(lambda v: v * 2 + jax.lax.psum(v, 'i'), axis_name='i')
print(f(x))
g = jax.pmap(lambda a, b: a + b, in_axes=(0, None))
print(g(x, jnp.array([100.0, 200.0])))
h = jax.pmap(lambda v: jax.lax.axis_index('i') * v, axis_name='i')(jnp.ones(4))
result = [f(x), g(x, jnp.array([100.0, 200.0])), h]
