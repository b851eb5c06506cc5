import jax
import jax.numpy as jnp
import optax
from flax import nnx


def train_step(mesh, seed, x, y, lr):
    # One device simulates them all: a loop over the shards stands for the
    # devices, and averaging in Python stands for pmean.
    model = nnx.Linear(x.shape[-1], y.shape[-1], rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(lr), wrt=nnx.Param)

    def loss_fn(model, x, y):
        return jnp.mean((model(x) - y) ** 2)

    n = mesh.devices.size
    size = x.shape[0] // n
    losses, grads = [], []
    for i in range(n):
        rows = slice(i * size, (i + 1) * size)
        loss, g = nnx.value_and_grad(loss_fn)(model, x[rows], y[rows])
        losses.append(loss)
        grads.append(g)
    mean_grads = jax.tree.map(lambda *gs: sum(gs) / n, *grads)
    optimizer.update(model, mean_grads)
    return jnp.mean(jnp.stack(losses)), model.kernel[...], model.bias[...]
