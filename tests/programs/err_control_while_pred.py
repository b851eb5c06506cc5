import jax, jax.numpy as jnp
from jax import lax
out = lax.while_loop(lambda c: c, lambda c: c + 1.0, jnp.zeros(2))
