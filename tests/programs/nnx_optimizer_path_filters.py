# nnx.Optimizer restricted to some parameters by their paths:
# PathContains (exact and by substring) and its combinations with types.
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Net(nnx.Module):
  def __init__(self, rngs):
    self.encoder = nnx.Linear(3, 4, rngs=rngs)
    self.encoder_norm = nnx.LayerNorm(4, rngs=rngs)
    self.head = nnx.Linear(4, 2, rngs=rngs)

  def __call__(self, x):
    return self.head(self.encoder_norm(self.encoder(x)))


x = jax.random.normal(jax.random.key(0), (5, 3))
y = jax.random.normal(jax.random.key(1), (5, 2))
loss = lambda m: jnp.mean((m(x) - y) ** 2)

for wrt in [nnx.PathContains('kernel'),
            nnx.PathContains('encoder', exact=True),
            nnx.PathContains('encoder', exact=False),
            nnx.All(nnx.Param, nnx.Not(nnx.PathContains('bias'))),
            nnx.Any(nnx.PathContains('head'), nnx.PathContains('scale'))]:
  model = Net(nnx.Rngs(0))
  opt = nnx.Optimizer(model, optax.sgd(0.1), wrt=wrt)
  print(wrt)
  before = jax.tree.map(lambda a: a, nnx.state(model, nnx.Param))
  grads = nnx.grad(loss)(model)
  opt.update(model, grads)
  after = nnx.state(model, nnx.Param)
  for layer, name in [('encoder', 'kernel'), ('encoder', 'bias'), ('encoder_norm', 'scale'),
                      ('encoder_norm', 'bias'), ('head', 'kernel'), ('head', 'bias')]:
    moved = bool(jnp.any(before[layer][name][...] != after[layer][name][...]))
    print(' ', layer, name, moved)
  print(model.head.kernel[0])
result = loss(model)
