import jax
import jax.numpy as jnp
import optax
from flax import nnx

model = nnx.Sequential(nnx.Linear(3, 4, rngs=nnx.Rngs(1)), nnx.Linear(4, 2, rngs=nnx.Rngs(2)))
state = nnx.state(model, nnx.Param)
names = nnx.map_state(lambda p, v: list(p)[-1], state)
print(names)
shapes = nnx.map_state(lambda p, v: (p, v.value.shape), state)
print(shapes)

rates = {'kernel': optax.sgd(0.1), 'bias': optax.adam(0.05)}
opt = nnx.Optimizer(model, tx=optax.partition(rates, names), wrt=nnx.Param)
x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)

@nnx.jit
def step(model, opt):
  loss, grads = nnx.value_and_grad(lambda m: jnp.mean(m(x) ** 2))(model)
  opt.update(model, grads)
  return loss

for _ in range(3):
  loss = step(model, opt)
  print(f"loss {loss}")
print(f"{loss:.5f}|{jnp.float32(0.1)}|{jnp.int32(7):>4}|{jnp.array(True)}|{jnp.array(2.5) * 3}")
result = model.layers[1].bias.value
