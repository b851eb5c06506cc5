import jax
import jax.numpy as jnp


@jax.jit
def f(v):
    jax.debug.print("no fields", v.sum())
    return v


result = f(jnp.ones(3))
