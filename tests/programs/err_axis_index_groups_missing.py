# Groups that leave devices out fail when XLA compiles the pmap.
import jax
import jax.numpy as jnp
from jax import lax


def body(v):
    return lax.psum(v, 'i', axis_index_groups=[[0, 1]])


f = jax.pmap(body, axis_name='i')
result = f(jnp.arange(4.0))
