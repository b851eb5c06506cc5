import jax
import jax.numpy as jnp
from flax import nnx

class Affine(nnx.Pytree):
  def __init__(self, n, scale):
    self.n = nnx.static(n)
    self.scale = nnx.data(scale)
    self.w = jnp.arange(float(n))
    self.tag = 'affine'

class Stack(nnx.Pytree):
  def __init__(self):
    self.parts = nnx.List([Affine(2, 0.5), Affine(3, 2.0)])
    self.count = 7

s = Stack()
leaves, treedef = jax.tree.flatten_with_path(s)
for path, leaf in leaves:
  print(jax.tree_util.keystr(path), repr(leaf))

doubled = jax.tree.map(lambda x: x * 2, s)
print(doubled.parts[1].w, doubled.parts[1].scale, doubled.parts[0].n, doubled.count)
print(isinstance(nnx.Linear(2, 2, rngs=nnx.Rngs(0)), nnx.Pytree))
print(nnx.is_data(jnp.ones(1)), nnx.is_data(nnx.Param(1.0)), nnx.is_data(nnx.Rngs(0)))
print(nnx.is_data('x'), nnx.is_data(3), nnx.is_data([jnp.ones(1)]))

class Net(nnx.Module):
  def __init__(self):
    self.k = nnx.data(4)
    self.w = nnx.Param(jnp.ones(3))

net = Net()
print([jax.tree_util.keystr(p) for p, _ in jax.tree.flatten_with_path(net)[0]])

class Bad(nnx.Pytree):
  def __init__(self, hide):
    self.opt = None
    if hide:
      self.hidden = nnx.static(jnp.ones(2))
    else:
      self.opt = nnx.Param(jnp.ones(1))

for hide in (True, False):
  try:
    Bad(hide)
  except ValueError as e:
    print('ValueError:', e)

class Fine(nnx.Pytree):
  def __init__(self):
    self.opt = nnx.data(None)
    self.opt = nnx.Param(jnp.ones(1))

print([jax.tree_util.keystr(p) for p, _ in jax.tree.flatten_with_path(Fine())[0]])
