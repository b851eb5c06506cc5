import jax
import jax.numpy as jnp
from flax import nnx

class Scale(nnx.Module):
  def __init__(self, n):
    self.w = nnx.Param(jnp.full((n,), 0.5))
  def __call__(self, x):
    return x * self.w

class Stack(nnx.Module):
  def __init__(self):
    self.blocks = nnx.List([Scale(2), Scale(2)])
    self.tags = nnx.List(['a', 3])
    self.empty = nnx.List([])
    self.extra = nnx.List([nnx.BatchStat(jnp.arange(3.0))])
    self.plain = [1, 2]

m = Stack()
print(m)
seq = nnx.Sequential(Scale(3), Scale(3))
nnx.display(seq)

# Copies of the graph keep their lists' kinds.
graphdef, state = nnx.split(seq)
print(nnx.merge(graphdef, state))
bigger = nnx.recursive_map(lambda p, n: Scale(4) if isinstance(n, Scale) else n, seq)
print(bigger)
result = bigger(jnp.ones(4))
