import jax
import jax.numpy as jnp
from flax import nnx

# nnx.capture collects what modules sow while a function runs.
class Score(nnx.Intermediate):
  pass

class Head(nnx.Module):
  def __init__(self, rngs):
    self.proj = nnx.Linear(3, 2, rngs=rngs)

  def embed(self, x):
    h = jnp.tanh(self.proj(x))
    self.sow(nnx.Intermediate, 'h', h)
    self.sow(Score, 'norm', jnp.sum(h * h))
    return h

  def __call__(self, x):
    return self.embed(x).sum() + self.embed(2 * x).sum()

class Net(nnx.Module):
  def __init__(self, rngs):
    self.heads = nnx.List([Head(rngs), Head(rngs)])

  def __call__(self, x):
    return sum(h(x) for h in self.heads)

net = Net(nnx.Rngs(3))
x = jnp.arange(3.0)
out, inter = nnx.capture(net, nnx.Intermediate)(x)
print(out)
print(jax.tree.map(jnp.shape, inter))
out, inter, scores = nnx.capture(net, nnx.Intermediate, Score)(x)
print(scores)
print(nnx.capture(net.heads[0].embed, Score)(x)[1])

@nnx.capture(Score)
def probe(model, y):
  print('inside:', model.__captures__)
  found = model.sow(Score, 'seen', y)
  missed = model.sow(nnx.Intermediate, 'lost', y)
  return found, missed

print(probe(nnx.Module(), jnp.ones(2)))
print(hasattr(net, '__captures__'))

# Method outputs are sown under each method's name.
res, outs = nnx.capture(net.heads[1], nnx.Intermediate, method_outputs=nnx.Intermediate)(x)
print(jax.tree.map(jnp.shape, outs))

# Perturbations start at zero and are added to the value.
class Shift(nnx.Module):
  def __call__(self, v):
    print('before:', self.__captures__)
    w = self.perturb('dv', v)
    self.sow(nnx.Intermediate, 'w', w)
    return w * 2

_, pert = nnx.capture(Shift(), nnx.Perturbation)(jnp.float32(1.5))
print(pert)
_, seen = nnx.capture(Shift(), nnx.Intermediate, init=jax.tree.map(lambda a: a + 1, pert))(jnp.float32(1.5))
print(seen)
print(nnx.capture(lambda m, v: m(v), init=pert)(Shift(), 2.0))

# merge_state keeps the order entries were met in.
print(nnx.merge_state(pert, seen))

# Gradients with respect to the perturbations, through nnx.grad.
class Quiet(nnx.Module):
  def __call__(self, v):
    w = self.perturb('dv', v)
    self.sow(nnx.Intermediate, 'w', w)
    return w * 2

def loss(model, perturbations, v):
  out, sown = nnx.capture(model, nnx.Intermediate, init=perturbations)(v)
  return out ** 2, sown

(g_model, g_pert), sown = nnx.grad(loss, argnums=(0, 1), has_aux=True)(Quiet(), pert, jnp.float32(0.5))
print(g_model, g_pert, sown)

@nnx.value_and_grad(argnums=(1,))
def scaled(model, perturbations, v):
  return nnx.capture(lambda m: m(v), init=perturbations)(model)

print(scaled(Quiet(), pert, jnp.float32(2.0)))
result = nnx.capture(net.heads[0].embed, Score)(x)[1]['norm'][0]
