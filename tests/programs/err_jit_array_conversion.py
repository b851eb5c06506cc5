import jax, numpy as np, jax.numpy as jnp
@jax.jit
def host_sum(v):
    return np.asarray(v).sum()
result = host_sum(jnp.arange(3.0))
