import jax
import jax.numpy as jnp
from flax import nnx

class Layer(nnx.Module):
  def __init__(self, d, rngs):
    self.lin = nnx.Linear(d, d, rngs=rngs)
    self.drop = nnx.Dropout(0.3)

  def __call__(self, x, rngs):
    return nnx.relu(self.drop(self.lin(x), rngs=rngs))

@nnx.split_rngs(splits=3)
@nnx.vmap(in_axes=(0,), out_axes=0)
def build(rngs):
  return Layer(4, rngs)

rngs = nnx.Rngs(params=2, dropout=9)
stack = build(rngs)
print(stack.lin.kernel[...].shape, stack.lin.bias[...].shape)
print(stack.lin.kernel[...][2])
print(rngs.params.count[...], rngs.params.key[...].shape)

@nnx.scan(in_axes=(0, 0, nnx.Carry), out_axes=nnx.Carry)
def forward(layer, rngs, x):
  return layer(x, rngs)

drops = nnx.Rngs(dropout=5).fork(split=3)
y = forward(stack, drops, jnp.ones((2, 4)))
print(y)
print(drops.dropout.count[...])

with nnx.split_rngs(rngs, splits=2, only='dropout'):
  print(rngs.dropout.key[...].shape, rngs.params.key[...].shape)

with nnx.split_rngs(rngs, splits=3):
  z = forward(stack, rngs, jnp.ones((2, 4)))
  print(rngs.dropout.count[...])
print(z)
print(rngs.dropout.count[...], rngs.dropout.key[...].shape)

backups = nnx.split_rngs(rngs, splits=(2, 2))
print(rngs.params.key[...].shape, rngs.params.count[...])
nnx.restore_rngs(backups)
print(rngs.params.key[...].shape, rngs.params.count[...])

class Noisy(nnx.Module):
  def __init__(self, rngs):
    self.drop = nnx.Dropout(0.5, rngs=rngs)

  def __call__(self, x):
    return self.drop(x)

noisy = Noisy(nnx.Rngs(dropout=4))
a = noisy(jnp.ones(6))
b = noisy(jnp.ones(6))
nnx.reseed(noisy, dropout=4)
c = noisy(jnp.ones(6))
print(a, b, c)
print(noisy.drop.rngs.count[...])
print(nnx.Rngs(7).fork(split=4))
