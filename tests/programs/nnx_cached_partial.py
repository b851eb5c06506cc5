# nnx.cached_partial binds a train step's model and optimizer; the bound
# objects are the program's own, so their updates show after each call.
import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


step = nnx.cached_partial(train_step, model, optimizer)
x, y = jnp.ones((4, 2)), jnp.arange(12.0).reshape(4, 3) / 10
for i in range(3):
    print(i, step(x, y))
print(optimizer.step[...])
print(model.bias[...])
print(train_step(model, optimizer, x, y))
result = model.kernel[...]
