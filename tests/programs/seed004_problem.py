import jax
import jax.numpy as jnp
import optax
from flax import nnx


def data_parallel_step(seed, x_batch, y_batch, num_devices, lr):
    seed = int(seed)
    num_devices = int(num_devices)
    lr = float(lr)
    model = nnx.Linear(x_batch.shape[-1], y_batch.shape[-1], rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(lr), wrt=nnx.Param)

    def loss_fn(model, x, y):
        return jnp.mean((model(x) - y) ** 2)

    chunk = x_batch.shape[0] // num_devices
    per_shard_losses = []
    per_shard_grads = []
    for i in range(num_devices):
        x_shard = jax.lax.dynamic_slice_in_dim(x_batch, i * chunk, chunk, axis=0)
        y_shard = jax.lax.dynamic_slice_in_dim(y_batch, i * chunk, chunk, axis=0)
        loss_i, grads_i = nnx.value_and_grad(loss_fn)(model, x_shard, y_shard)
        per_shard_losses.append(loss_i)
        per_shard_grads.append(grads_i)
    mean_loss = jnp.mean(jnp.stack(per_shard_losses))
    avg_grads = jax.tree_util.tree_map(
        lambda *xs: sum(xs) / float(num_devices), *per_shard_grads
    )
    optimizer.update(model, avg_grads)
    return jnp.array([float(mean_loss)])


outs = []
x = jnp.arange(24.0).reshape(8, 3) / 10.0
y = jnp.ones((8, 2))
outs.append(data_parallel_step(0.0, x, y, 4.0, 0.1))
for k, (n, din, dout, ndev, lr) in enumerate([(8, 4, 2, 2.0, 0.05), (12, 3, 3, 3.0, 0.01), (4, 2, 1, 4.0, 0.5)]):
    xb = jax.random.normal(jax.random.PRNGKey(10 + k), (n, din))
    yb = jax.random.normal(jax.random.PRNGKey(20 + k), (n, dout))
    outs.append(data_parallel_step(float(k + 1), xb, yb, ndev, lr))
for o in outs:
    print(o)
result = outs
