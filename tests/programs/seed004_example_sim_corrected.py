import jax
import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
def loss_fn(model, x, y):
    return jnp.mean((model(x) - y) ** 2)
x = jnp.arange(24.0).reshape(8, 3) / 10
y = jnp.ones((8, 2))
num_devices = 4
chunk = x.shape[0] // num_devices
per_shard_grads = []
per_shard_losses = []
for i in range(num_devices):
    x_shard = jax.lax.dynamic_slice_in_dim(x, i*chunk, chunk, axis=0)
    y_shard = jax.lax.dynamic_slice_in_dim(y, i*chunk, chunk, axis=0)
    loss, grads = nnx.value_and_grad(loss_fn)(model, x_shard, y_shard)
    per_shard_losses.append(loss)
    per_shard_grads.append(grads)

mean_loss = jnp.mean(jnp.stack(per_shard_losses))
avg_grads = jax.tree_util.tree_map(
    lambda *xs: sum(xs) / float(num_devices), *per_shard_grads,
)
optimizer.update(model, avg_grads)
print(mean_loss)
for g in jax.tree_util.tree_leaves(avg_grads):
    print(g)
print(model.kernel[...])
print(model.bias[...])
result = [mean_loss, model.kernel[...], model.bias[...]]
