import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def fsdp_step(mesh, w, x, y):
    def local(w_shard, x_block, y_block):
        def loss(w_shard):
            # Each device keeps only its rows of w: gather the whole matrix
            # for the forward pass.
            w_full = jax.lax.all_gather(w_shard, 'data', axis=0, tiled=True)
            err = jnp.tanh(x_block @ w_full) - y_block
            return jax.lax.pmean(jnp.mean(err * err), 'data')

        # all_gather's transpose is a reduce-scatter: each device gets its
        # rows of the gradient, summed over every device's examples.
        return jax.value_and_grad(loss)(w_shard)

    return jax.shard_map(local, mesh=mesh, in_specs=(P('data', None), P('data'), P('data')),
                         out_specs=(P(), P('data', None)))(w, x, y)
