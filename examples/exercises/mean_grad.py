import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def loss_and_grad(mesh, w, x, y):
    def local(w, x, y):
        def loss(w):
            err = x @ w - y
            # Every device holds the same number of examples, so the mean
            # over the whole batch is the mean of the devices' means.
            return jax.lax.pmean(jnp.mean(err * err), 'data')

        # The loss is the whole batch's, so its gradient is too: w is the
        # same on every device, and its gradient is the same everywhere.
        return jax.value_and_grad(loss)(w)

    f = jax.shard_map(local, mesh=mesh, in_specs=(P(), P('data'), P('data')), out_specs=(P(), P()))
    return f(w, x, y)
