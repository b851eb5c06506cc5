import jax, jax.numpy as jnp
from jax import lax
def step(carry, x):
    return carry.sum(), x
out = lax.scan(step, jnp.ones(3), jnp.ones((2, 3)))
