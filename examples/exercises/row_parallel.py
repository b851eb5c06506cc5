import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def row_parallel_matmul(mesh, x, w):
    def local(x_block, w_block):
        # x's columns and w's rows are split over 'model': each device's
        # product is a partial sum of the whole product.
        partial = x_block @ w_block
        # Add the partial sums and keep this device's block of columns.
        return jax.lax.psum_scatter(partial, 'model', scatter_dimension=1, tiled=True)

    f = jax.shard_map(local, mesh=mesh, in_specs=(P(None, 'model'), P('model', None)),
                      out_specs=P(None, 'model'))
    return f(x, w)
