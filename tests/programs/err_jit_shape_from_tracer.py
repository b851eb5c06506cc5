import jax, numpy as np, jax.numpy as jnp
@jax.jit
def padded(v, size):
    out = jnp.zeros((size,))
    return out.at[: v.shape[0]].set(v)
result = padded(jnp.ones(2), jnp.int32(4))
