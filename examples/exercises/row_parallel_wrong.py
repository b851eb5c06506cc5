import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def row_parallel_matmul(mesh, x, w):
    def local(x_block, w_block):
        # The partial sums are never added: each device returns its own
        # partial product as if it were a block of the result.
        return x_block @ w_block

    f = jax.shard_map(local, mesh=mesh, in_specs=(P(None, 'model'), P('model', None)),
                      out_specs=P(None, 'model'))
    return f(x, w)
