import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
x = jnp.arange(24.0).reshape(2, 3, 4)
f = jax.vmap(jax.vmap(lambda v: jnp.dot(v, v)))
print(f(x))
g = jax.vmap(lambda m: m @ m.T)(x)
print(g.shape)
result = [f(x), g]
