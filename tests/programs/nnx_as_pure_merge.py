import jax
import jax.numpy as jnp
import optax
from flax import nnx

# A pure state (arrays where the variables were) merges back into a model.
model = nnx.Sequential(nnx.Linear(2, 3, rngs=nnx.Rngs(7)), nnx.Linear(3, 1, rngs=nnx.Rngs(8)))
graphdef, state = nnx.split(model)
pure = nnx.as_pure(state)
print(jax.tree.map(jnp.shape, pure))
print(jax.tree.structure(nnx.as_pure(nnx.state(model.layers[0]))))
halved = jax.tree.map(lambda v: v / 2, pure)
copy = nnx.merge(graphdef, halved)
print(copy.layers[0].kernel)
print(type(copy.layers[1].bias).__name__, copy.layers[1].bias[...])

# L-BFGS's line search evaluates the loss at pure states.
x = jnp.linspace(-1.0, 1.0, 10).reshape(5, 2)
y = jnp.sin(x[:, :1])
loss_fn = lambda m: jnp.mean((m(x) - y) ** 2)
opt = nnx.Optimizer(model, optax.lbfgs(0.1), wrt=nnx.Param)
for i in range(4):
  loss, grads = nnx.value_and_grad(loss_fn)(model)
  opt.update(model, grads, grad=grads, value=loss,
             value_fn=lambda s: loss_fn(nnx.merge(graphdef, s)))
  print(i, f"{loss:.5f}")
result = model.layers[1].kernel[...]
