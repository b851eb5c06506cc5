# jnp.round with decimals on 0-d and n-d arrays, eagerly and under jit:
# JAX scales, rounds to even and divides by the factor inside its own jit,
# where the division by a constant is a multiplication by its reciprocal.
import jax
import jax.numpy as jnp

x0 = jnp.float32(3.79759979)
print(jnp.round(x0, 4), jnp.round(3.79759979, 4), x0.round(4))
print(jnp.round(jnp.float32(1.23456), 4), jnp.round(jnp.float32(7.77777), 4))
v = jnp.array([3.79759979, 1.23456, 2.5e-3, 7.77777, -0.125], jnp.float32)
print(jnp.round(v, 4))
print(jnp.round(v, 1), jnp.round(v, -1), jnp.round(v))
print(jax.jit(lambda a: jnp.round(a, 4))(x0), jax.jit(lambda a: jnp.round(a, 4))(v))
print(jnp.round(jnp.float32(1234.5678), -2), jnp.round(jnp.float32(0.125), 2))
result = jnp.round(jnp.float32(2.675), 2)
