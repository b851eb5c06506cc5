# Fully sharded data parallelism with Flax NNX: every parameter carries a
# partition spec (nnx.with_partitioning), so under a context mesh each weight
# is split over 'fsdp' on creation; the batch is split over 'fsdp' too, and
# jit gathers the weights for each layer and reduce-scatters the gradients.
import jax, jax.numpy as jnp, optax
from flax import nnx
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType

mesh = jax.make_mesh((4,), ('fsdp',), axis_types=(AxisType.Auto,))

class MLP(nnx.Module):
    def __init__(self, din, dhidden, dout, rngs):
        init = nnx.initializers.lecun_normal()
        self.w1 = nnx.Param(nnx.with_partitioning(init, ('fsdp', None))(rngs.params(), (din, dhidden)))
        self.w2 = nnx.Param(nnx.with_partitioning(init, ('fsdp', None))(rngs.params(), (dhidden, dout)))

    def __call__(self, x):
        return jnp.tanh(x @ self.w1) @ self.w2

with jax.set_mesh(mesh):
    model = MLP(8, 16, 4, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(0.02), wrt=nnx.Param)

for name in ('w1', 'w2'):
    w = getattr(model, name)[...]
    print(name, w.shape, w.sharding.spec, w.sharding.shard_shape(w.shape))

x = jax.device_put(jnp.linspace(-1, 1, 32 * 8).reshape(32, 8), NamedSharding(mesh, P('fsdp')))
y = jax.device_put(jnp.sin(jnp.arange(32 * 4.0)).reshape(32, 4), NamedSharding(mesh, P('fsdp')))

@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss

losses = []
with jax.set_mesh(mesh):
    for step in range(8):
        losses.append(train_step(model, optimizer, x, y))
print([round(float(l), 5) for l in losses])
print(model.w1[...].sharding.spec, model.w2[...].sharding.shard_shape(model.w2.shape))
result = {'losses': losses, 'w2': model.w2[...]}
