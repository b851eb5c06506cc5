import jax
import jax.numpy as jnp
from flax import nnx

# Objects that are not pytrees: JAX sees them as leaves, attributes are free.
class Loose(nnx.Pytree, pytree=False):
  def __init__(self):
    self.items = [jnp.array(1.5), jnp.array(2.5)]
    self.tag = "start"
    self.tag = jnp.array(4.0)
    self.n = nnx.data(3)

loose = Loose()
print(jax.tree_util.all_leaves([loose]), len(jax.tree.leaves({'a': loose, 'b': 1})))
print(loose.n, loose.tag)

class Tight(Loose):
  pass

try:
  Tight()
except ValueError as e:
  print("ValueError:", e)

class Plain(nnx.Object):
  def __init__(self, k):
    self.w = nnx.Param(jnp.arange(3.0) * k)
    self.extra = ["free", 1]

p = Plain(2.0)
print(jax.tree_util.all_leaves([p]), nnx.state(p))

try:
  class Wrong(nnx.Object, pytree=True):
    pass
except ValueError as e:
  print("ValueError:", e)

class Base:
  pass

try:
  class Other(Base, flag=1):
    pass
except TypeError as e:
  print("TypeError:", e)

class Counter(nnx.Module):
  def __init__(self):
    self.seen = []
    for i in range(3):
      self.seen.append(jnp.array(i))

try:
  Counter()
except ValueError as e:
  print("ValueError:", e)

class Tagged(nnx.Pytree):
  def __init__(self):
    self.parts = (nnx.static(1), 2)

try:
  Tagged()
except ValueError as e:
  print("ValueError:", e)

class Fine(nnx.Module):
  def __init__(self):
    self.blocks = nnx.List([nnx.Linear(2, 2, rngs=nnx.Rngs(0))])
    self.names = ["a", "b"]

print(jax.tree.map(jnp.shape, nnx.state(Fine())))
result = float(loose.tag) + float(jnp.sum(p.w[...]))
