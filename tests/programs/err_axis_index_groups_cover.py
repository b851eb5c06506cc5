# Groups that repeat an index (and so miss another) are refused where psum is called.
import jax
import jax.numpy as jnp
from jax import lax


def body(v):
    doubled = 2 * v
    return lax.psum(doubled, 'i', axis_index_groups=[[0, 1], [1, 3]])


result = jax.pmap(body, axis_name='i')(jnp.arange(4.0))
