import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
x = jnp.arange(24).reshape(2, 3, 4)
print(x[1])
print(x[:, 1])
print(x[..., -1])
print(x[0, ::2, 1:3])
print(x[:, None, 0].shape)
print(x[1, jnp.array([2, 0])])
print(x[0, 1, ::-1])
y = jnp.zeros(5).at[2].set(3.0).at[jnp.array([0, 4])].add(1.5)
print(y)
print(x[1, 2, 3], x[-1, -1, -1].item())
result = [x[1], x[:, 1], x[..., -1], x[0, ::2, 1:3], y, x[0, 1, ::-1]]
