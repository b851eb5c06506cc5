# A keyword a collective does not take is a TypeError, not ignored.
import jax
import jax.numpy as jnp
from jax import lax


def body(v):
    return lax.all_gather(v, 'i', tiled=True, axis_index_group=[[0, 1], [2, 3]])


result = jax.pmap(body, axis_name='i')(jnp.arange(4.0))
