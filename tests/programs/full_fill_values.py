# jnp.full and the *_like functions with fills that are arrays: broadcast
# rows, traced values under jit and vmap, and the dtypes they lead to.
import jax
import jax.numpy as jnp

row = jnp.array([1.0, 2.0, 3.0])
print(jnp.full((2, 3), row))
print(jnp.full((2, 3), jnp.array(7)))
print(jnp.full((2,), 1.5), jnp.full((2,), 2), jnp.full((2,), True))
print(repr(jnp.full((2,), 3, dtype=jnp.float32)))
print(repr(jnp.full((2, 2), jnp.arange(2))))
print(repr(jnp.full_like(jnp.ones((2, 2), jnp.int32), 2.7)))
print(repr(jnp.full_like(jnp.zeros(3), row)))
print(repr(jnp.zeros_like(jnp.arange(3))), repr(jnp.ones_like(row)))


@jax.jit
def fill_with(v):
    return jnp.full((2, 2), v) + jnp.full_like(jnp.zeros((2, 2)), v * 2)


print(fill_with(3.0))
print(jax.vmap(lambda v: jnp.full((3,), v))(jnp.arange(4.0)))
print(jax.make_jaxpr(lambda v: jnp.full((2,), v))(1.0))
print(jax.grad(lambda v: jnp.full((4,), v).sum())(2.0))
result = fill_with(jnp.float32(0.5))
