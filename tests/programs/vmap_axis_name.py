import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
x = jnp.arange(12.0).reshape(3, 4)
norm = jax.vmap(lambda r: r / jax.lax.psum(jnp.sum(r), 'b'), axis_name='b')(x)
print(norm)
cols = jax.vmap(jnp.sum, in_axes=1)(x)
print(cols)
out1 = jax.vmap(lambda a, s: a * s, in_axes=(0, None), out_axes=1)(x, 2.0)
print(out1.shape)
idx = jax.vmap(lambda r: r * jax.lax.axis_index('b'), axis_name='b')(x)
result = [norm, cols, out1, idx]
