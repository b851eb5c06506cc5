import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
a = jnp.ones((2, 3))
result = a + jnp.ones((4,))
