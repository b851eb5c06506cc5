# jnp.roll: flattened, along one axis, several axes, negative and large
# shifts; under jit and grad.
import jax, jax.numpy as jnp

x = jnp.arange(12.0).reshape(3, 4)
print(jnp.roll(x, 1))
print(jnp.roll(x, -5, axis=1))
print(jnp.roll(x, (1, 2), axis=(0, 1)))
print(jnp.roll(x, 7, axis=-2))
print(jnp.roll(jnp.arange(5), 2))
print(jax.jit(lambda a: jnp.roll(a, 1, axis=0))(x))
print(jax.grad(lambda a: (jnp.roll(a, 1, axis=1) * jnp.arange(4.0)).sum())(x))
try:
    jnp.roll(x, 1, axis=2)
except ValueError as e:
    print('ValueError:', e)
result = jnp.roll(x, 3)
