import jax.numpy as jnp
from flax import nnx

class Leafy(nnx.Pytree):
  def __init__(self):
    self.v = jnp.arange(3.0)

class Tied(nnx.Module):
  def __init__(self):
    self.enc = nnx.Linear(2, 2, rngs=nnx.Rngs(0))
    self.dec = self.enc
    self.scale = nnx.Param(jnp.ones(2))
    self.blocks = nnx.List([Leafy(), self.scale])
    self.other = nnx.Param(jnp.zeros(1))

t = Tied()
print(nnx.find_duplicates(t))
print(nnx.find_duplicates(nnx.Linear(2, 3, rngs=nnx.Rngs(1))))
result = len(nnx.find_duplicates(t))
