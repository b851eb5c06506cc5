# jax.debug.print inside vmap bodies: one line per batch index, in index
# order; under nested vmaps the outermost index varies fastest.
import jax
import jax.numpy as jnp


def step(x):
    jax.debug.print("x = {x}", x=x)
    y = jnp.cos(x) + x
    jax.debug.print("pair {} {:.4f}", x, y)
    return y * 3


print(jax.vmap(step)(jnp.arange(4.0)))
print(jax.jit(jax.vmap(step))(jnp.array([0.5, -1.5])))


def total(row):
    jax.debug.print("row {}", row)
    return row.sum()


print(jax.vmap(jax.vmap(total))(jnp.arange(12).reshape(2, 3, 2)))


def scaled(x, k):
    jax.debug.print("k={k} x={x}", x=x, k=k)
    return x * k


print(jax.vmap(scaled, in_axes=(0, None))(jnp.arange(3), 5))
result = jax.vmap(jax.jit(scaled))(jnp.arange(2.0), jnp.array([2.0, 4.0]))
