import jax
import jax.numpy as jnp
from flax import nnx

class Weights(nnx.Module):
  def __init__(self, kernel, bias):
    self.kernel, self.bias = nnx.Param(kernel), nnx.Param(bias)

def create(seed):
  return Weights(jax.random.normal(jax.random.key(seed), (2, 3)), jnp.zeros((3,)))

stacked = nnx.vmap(create)(jnp.arange(4))
print(stacked.kernel.shape, stacked.bias.shape)
print(stacked.kernel[...][2])
print(create(2).kernel[...])

def noisy(seed, scale):
  return scale * jax.random.uniform(jax.random.key(seed), (3,))

print(nnx.vmap(noisy, in_axes=(0, None), out_axes=1)(jnp.array([7, 8]), 2.0))

v = nnx.Param(jnp.array(1.0))
def add(v): v += 2
def sub(v): v -= 2
def mul(v): v *= 2
def div(v): v /= 2
def pow_(v): v **= 2
for f in [add, sub, mul, div, pow_]:
  try:
    f(v)
  except NotImplementedError as e:
    print(e)
v[...] += 2
print(v[...])
result = stacked.kernel[...]
