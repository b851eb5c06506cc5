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
        # Every device holds as many examples, so the batch's mean loss and
        # gradient are the means of the devices' ones.
        mean = lambda t: jax.lax.pmean(t, 'data')
        return mean(loss), jax.tree.map(mean, grads)

    # check_vma=False: the parameters' gradients come back per device, as
    # the loop over shards computes them, and pmean averages them.
    step = jax.shard_map(local, mesh=mesh, in_specs=(P(), P('data'), P('data')),
                         out_specs=(P(), P()), check_vma=False)
    loss, grads = step(state, x, y)
    optimizer.update(model, grads)
    return loss, model.kernel[...], model.bias[...]
