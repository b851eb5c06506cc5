# jnp.unique of traced arrays with size=: padding by the smallest value or
# fill_value, first indices, inverse, counts, NaN runs, axis=, vmap.
import jax
import jax.numpy as jnp

x = jnp.array([3, 4, 1, 3, 1])
f = jax.jit(jnp.unique, static_argnames='size')
print(f(x, size=3))
print(f(x, size=5))
print(jax.jit(lambda x: jnp.unique(x, size=5, fill_value=0))(x))
print(jax.jit(lambda x: jnp.unique(x, size=2, return_index=True, return_inverse=True, return_counts=True))(x))
print(jax.jit(lambda x: jnp.unique(x, size=6, fill_value=-1, return_index=True, return_inverse=True, return_counts=True))(x))
y = jnp.array([[2., jnp.nan, 1.], [jnp.nan, 2., 0.5]])
print(jax.jit(lambda y: jnp.unique(y, size=6, fill_value=9.5, return_inverse=True))(y))
print(jax.jit(lambda y: jnp.unique(y, size=4, equal_nan=False, return_counts=True))(y))
m = jnp.array([[1, 2], [0, 5], [1, 2], [0, 4]])
print(jax.jit(lambda m: jnp.unique(m, axis=0, size=4, fill_value=7, return_index=True, return_inverse=True, return_counts=True))(m))
print(jax.jit(lambda m: jnp.unique(m, axis=1, size=3, return_counts=True))(m))
print(jax.vmap(lambda r: jnp.unique(r, size=3, fill_value=-1))(jnp.array([[1, 1, 2], [5, 4, 5]])))
print(jax.jit(jnp.unique_counts, static_argnames='size')(x, size=4))
print(jax.jit(lambda x: jnp.unique_values(x, size=4, fill_value=0))(x))
print(jax.jit(lambda b: jnp.unique(b, size=3, fill_value=True))(jnp.array([True, False, True])))
result = jax.jit(lambda x: jnp.unique(x * 0.5, size=4, fill_value=9.0))(x)
