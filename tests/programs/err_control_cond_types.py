import jax, jax.numpy as jnp
from jax import lax
out = lax.cond(True, lambda v: v, lambda v: v.astype(jnp.int32), jnp.ones(3))
