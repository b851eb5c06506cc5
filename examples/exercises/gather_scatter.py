import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def two_layers(mesh, x, w1, w2):
    def column_parallel(x, w1_block):
        # Each device computes some of the output's columns: the blocks are
        # pieces of the result, so they are gathered side by side.
        h_block = x @ w1_block
        return jax.lax.all_gather(h_block, 'model', axis=1, tiled=True)

    def row_parallel(h_block, w2_block):
        # Each device holds some of the contracted rows: the products are
        # partial sums, added and split over the devices in one step.
        partial = h_block @ w2_block
        return jax.lax.psum_scatter(partial, 'model', scatter_dimension=1, tiled=True)

    h = jax.shard_map(column_parallel, mesh=mesh, in_specs=(P(), P(None, 'model')),
                      out_specs=P(), check_vma=False)(x, w1)
    y = jax.shard_map(row_parallel, mesh=mesh, in_specs=(P(None, 'model'), P('model', None)),
                      out_specs=P(None, 'model'))(h, w2)
    return h, y
