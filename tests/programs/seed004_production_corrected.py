import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
devices = np.array(jax.devices()[:4])
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from jax.experimental.shard_map import shard_map

mesh = Mesh(devices, axis_names=("data",))

@jax.jit
def train_step(model, optimizer, x, y):
    # x, y are sharded along axis 0 by P("data", None).
    def loss_fn(model, x, y):
        return jnp.mean((model(x) - y) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    # All-reduce mean across the data mesh axis.
    grads = jax.tree_util.tree_map(
        lambda g: jax.lax.pmean(g, axis_name="data"), grads,
    )
    optimizer.update(model, grads)
    return loss

sharded_step = shard_map(
    train_step, mesh,
    in_specs=(P(), P(), P("data", None), P("data", None)),
    out_specs=P(),
)
model = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
x = jnp.arange(24.0).reshape(8, 3) / 10
y = jnp.ones((8, 2))
loss = sharded_step(model, optimizer, x, y)
result = loss
