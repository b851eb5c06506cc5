import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
a = jnp.ones((2, 3))
b = jnp.ones((4, 5))
print("computing")
result = a @ b
