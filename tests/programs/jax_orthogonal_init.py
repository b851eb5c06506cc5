import jax
import jax.numpy as jnp
from jax.nn import initializers

o = initializers.orthogonal()
q = o(jax.random.key(0), (4, 3))
print(q)
print(jnp.allclose(q.T @ q, jnp.eye(3), atol=1e-5))
w = o(jax.random.key(1), (2, 5))
print(w)
print(initializers.orthogonal(scale=2.0, column_axis=0)(jax.random.key(2), (3, 2, 2)))
print(jax.jit(lambda k: o(k, (3, 3)))(jax.random.key(3)))
print(o(jax.random.key(4), (0, 3)).shape)
try:
    o(jax.random.key(0), (3,))
except ValueError as e:
    print("ValueError:", e)
result = q
