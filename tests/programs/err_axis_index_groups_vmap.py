# vmap does not take axis_index_groups over its own axis.
import jax
import jax.numpy as jnp
from jax import lax


def body(v):
    total = lax.psum(v, 'b', axis_index_groups=[[0, 1], [2, 3]])
    return v / total


result = jax.vmap(body, axis_name='b')(jnp.arange(4.0))
