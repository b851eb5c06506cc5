import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def two_layers(mesh, x, w1, w2):
    def column_parallel(x, w1_block):
        h_block = x @ w1_block
        return jax.lax.all_gather(h_block, 'model', axis=1, tiled=True)

    def row_parallel(h_block, w2_block):
        # Gathers the partial sums side by side as if they were column
        # blocks, instead of adding them.
        partial = h_block @ w2_block
        return jax.lax.all_gather(partial, 'model', axis=1, tiled=True)

    h = jax.shard_map(column_parallel, mesh=mesh, in_specs=(P(), P(None, 'model')),
                      out_specs=P(), check_vma=False)(x, w1)
    y = jax.shard_map(row_parallel, mesh=mesh, in_specs=(P(None, 'model'), P('model', None)),
                      out_specs=P(None, 'model'))(h, w2)
    return h, y
