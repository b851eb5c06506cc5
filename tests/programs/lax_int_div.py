# lax.div of integers rounds toward zero (C's division), where jnp's
# floor_divide rounds down and jnp's divide gives floats.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.array([-7, -3, -1, 0, 1, 3, 7], dtype=jnp.int32)
print(lax.div(x, jnp.int32(2)), lax.div(x, jnp.int32(-2)))
print(lax.div(x, jnp.array([2, -2, 3, -3, 4, -4, 5], dtype=jnp.int32)))
print(jax.jit(lambda a, b: lax.div(a, b))(x, jnp.int32(3)))
print(lax.div(x, jnp.int32(2)) * 2 + lax.rem(x, jnp.int32(2)) == x)
print(x // 2, jnp.floor_divide(x, -2))
u = jnp.array([7, 9, 200], dtype=jnp.uint32)
print(lax.div(u, jnp.uint32(4)))
print(lax.div(jnp.float32(-7.0), jnp.float32(2.0)))
result = lax.div(x, jnp.int32(-3))
