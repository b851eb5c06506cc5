import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def normalize(x):
    # One example: a 1-d vector scaled to unit length.
    return x / jnp.sqrt(jnp.sum(x * x))


def both_ways(mesh, xs):
    by_vmap = jax.vmap(normalize)(xs)
    # Inside shard_map the function sees a block of examples, so it still
    # needs vmap to treat each row as one example.
    by_shard_map = jax.shard_map(jax.vmap(normalize), mesh=mesh,
                                 in_specs=P('data'), out_specs=P('data'))(xs)
    return by_vmap, by_shard_map
