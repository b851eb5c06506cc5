import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din, dhidden, dout, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.linear2 = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x):
        return self.linear2(nnx.relu(self.linear1(x)))


model = MLP(3, 8, 2, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)
x = jax.random.normal(jax.random.PRNGKey(1), (16, 3))
y = jax.random.normal(jax.random.PRNGKey(2), (16, 2))


def loss_fn(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


losses = []
for step in range(5):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)
    print(step, loss)
    losses.append(loss)
print(optimizer.step.value)
print(model.linear2.bias[...])
result = {"losses": losses, "kernel": model.linear1.kernel[...]}
