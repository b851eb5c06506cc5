import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
x = jnp.arange(4.0)
assert x.shape == (5,), f"bad shape {x.shape}"
result = x
