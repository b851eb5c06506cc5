import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
def f(x):
    if x > 0:
        return x ** 2
    return -x
result = jax.grad(f)(1.0)
