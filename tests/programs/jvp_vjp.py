import jax, numpy as np, jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from functools import partial
f = lambda x: jnp.sin(x) * x ** 2
x = jnp.array([0.5, 1.0, 2.0])
y, t = jax.jvp(f, (x,), (jnp.ones(3),))
out, back = jax.vjp(f, x)
(ct,) = back(jnp.array([1.0, 0.0, 2.0]))
print(y, t, ct)
gg = jax.grad(jax.grad(lambda s: s ** 3))(2.0)
print(gg)
result = [y, t, ct, gg]
