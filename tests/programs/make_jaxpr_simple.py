import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
def f(x):
    return jnp.sum(jnp.sin(x) * 2.0)
j = jax.make_jaxpr(f)(jnp.ones(3))
print(j)
result = f(jnp.ones(3))
