import jax, jax.numpy as jnp
x = jnp.array([[0.5, -1.25, 3.0], [1.5, 0.25, -2.0]])
print(jnp.cumsum(x), jnp.cumsum(x, axis=0), jnp.cumsum(x, axis=-1))
print(jnp.cumprod(x, axis=1), jnp.cumprod(x))
i = jnp.arange(1, 7, dtype=jnp.int32)
print(jnp.cumsum(i), jnp.cumsum(i).dtype, jnp.cumprod(i))
b = jnp.array([True, False, True, True])
print(jnp.cumsum(b), jnp.cumsum(b).dtype)
print(jnp.cumsum(i, dtype=jnp.float32))
print(x.cumsum(axis=1))
print(jnp.diff(jnp.array([1.0, 4.0, 9.0, 16.0, 25.0])), jnp.diff(x), jnp.diff(x, axis=0))
print(jnp.diff(jnp.array([1, 4, 9, 16, 25]), n=2))
print(jax.grad(lambda v: jnp.cumsum(v * v).sum())(jnp.array([1.0, 2.0, 3.0])))
result = [jnp.cumsum(x), jnp.cumprod(i), jnp.diff(x)]
