import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
x = jnp.arange(12.0).reshape(3, 4)
a = jnp.where(x > 5, x, -x)
b = jnp.clip(x, 2, 7)
c = jnp.einsum('ij,kj->ik', x, x)
d = jnp.concatenate([x, x * 2], axis=1)
e = jnp.stack([x.sum(0), x.max(0)])
f = jnp.swapaxes(x, 0, 1).reshape(-1)
g = jnp.argmax(x, axis=1), jnp.argmin(x)
h = jnp.mean(x, axis=0, keepdims=True)
i = jnp.exp(-x / 10.0), jnp.sqrt(x), jnp.log1p(x)
parts = jnp.split(jnp.arange(6), 3)
print(a); print(b); print(c); print(d.shape, e, f)
print(g, h)
print(parts)
print(x.T.shape, x.ndim, x.size, x.dtype, x.astype(jnp.int32))
print(jnp.linspace(0, 1, 5), jnp.eye(3), jnp.ones((2, 2), dtype=jnp.int32), jnp.full((2,), 7.5))
result = [a, b, c, d, e, f, list(g), h, list(i), parts]
