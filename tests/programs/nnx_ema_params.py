import jax
import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Sequential(
    nnx.Linear(3, 4, rngs=nnx.Rngs(1)),
    nnx.Linear(4, 2, rngs=nnx.Rngs(2)),
)
optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)
ema = nnx.EMA(model, decay=0.8)
view = ema.apply_to(model)
print(view.layers[0].kernel is ema.params['layers'][0]['kernel'])
print(view.layers[1].kernel is model.layers[1].kernel)

def loss_fn(m, x, y):
  return jnp.mean((m(x) - y) ** 2)

@nnx.jit
def step(model, optimizer, ema, x, y):
  loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
  optimizer.update(model, grads)
  ema.update(model)
  return loss

x = jax.random.normal(jax.random.key(0), (8, 3))
y = jax.random.normal(jax.random.key(1), (8, 2))
for _ in range(6):
  loss = step(model, optimizer, ema, x, y)
print(loss)
print(loss_fn(view, x, y))
print(ema.params['layers'][1]['bias'][...])
print(model.layers[1].bias[...])

bias_only = nnx.EMA(model, 0.5, only=lambda path, v: path[-1] == 'bias')
model.layers[0].bias[...] = jnp.ones(4)
bias_only.update(model)
print(bias_only.params['layers'][0]['bias'][...])
print(list(bias_only.params['layers'][0].keys()))
