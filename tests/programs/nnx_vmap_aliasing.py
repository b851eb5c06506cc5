import jax.numpy as jnp
from flax import nnx

class Pair(nnx.Module):
  def __init__(self):
    self.w = nnx.Param(jnp.ones((3, 2)))
    self.b = nnx.BatchStat(jnp.zeros((3,)))

pair = Pair()

@nnx.vmap(in_axes=(0, None, 0))
def apply(a, b, c):
  return a

try:
  apply([pair], {'x': pair}, pair)
except ValueError as e:
  print(e)

@nnx.vmap(in_axes=(None, 1))
def scale(v, m):
  return v

try:
  scale(pair.w, pair)
except ValueError as e:
  print(e)

@nnx.vmap(in_axes=0)
def ok(m, n):
  return m.w[...].sum() + n.w[...].sum()

out = ok(pair, pair)
print(out)
result = float(out.sum())
