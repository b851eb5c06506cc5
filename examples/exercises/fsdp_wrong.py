import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def fsdp_step(mesh, w, x, y):
    def local(w_shard, x_block, y_block):
        w_full = jax.lax.all_gather(w_shard, 'data', axis=0, tiled=True)

        def loss(w_full):
            err = jnp.tanh(x_block @ w_full) - y_block
            return jnp.mean(err * err)

        # The gradient is taken with respect to the gathered copy and this
        # device's rows are cut out of it: it only holds this device's own
        # examples, as nothing adds the other devices' contributions.
        value, g_full = jax.value_and_grad(loss)(w_full)
        k = w_shard.shape[0]
        g_shard = jax.lax.dynamic_slice_in_dim(g_full, jax.lax.axis_index('data') * k, k, 0)
        return jax.lax.pmean(value, 'data'), g_shard

    return jax.shard_map(local, mesh=mesh, in_specs=(P('data', None), P('data'), P('data')),
                         out_specs=(P(), P('data', None)))(w, x, y)
