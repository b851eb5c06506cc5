import jax
import jax.numpy as jnp
from flax import nnx

class Tally(nnx.Module):
  def __init__(self, w):
    self.w = nnx.Param(w)
    self.calls = nnx.BatchStat(jnp.zeros(()))

  def __call__(self, h):
    self.calls[...] += 1.0
    return jnp.tanh(h @ self.w)

ws = jax.random.normal(jax.random.key(11), (5, 3, 3)) * 0.7
layers = nnx.vmap(lambda w: Tally(w))(ws)
print(layers.w.shape, layers.calls.shape)

@nnx.scan(in_axes=(nnx.Carry, 0), out_axes=(nnx.Carry, 0))
def run(h, layer):
  h = layer(h)
  return h, h.sum()

h, sums = run(jnp.array([0.5, -1.0, 2.0]), layers)
print(h)
print(sums)
print(layers.calls[...])

@nnx.scan(in_axes=(0, nnx.Carry), out_axes=nnx.Carry, reverse=True)
def backwards(layer, h):
  return layer(h)

print(backwards(layers, jnp.ones(3)))
print(layers.calls[...])

fixed = Tally(jnp.eye(3) * 0.5)

@nnx.scan(in_axes=(None, nnx.Carry, 1), out_axes=(nnx.Carry, 1))
def mix(layer, acc, x):
  y = layer(x)
  return acc + y, y * 2.0

acc, ys = mix(fixed, jnp.zeros(3), jnp.arange(12.0).reshape(3, 4))
print(acc)
print(ys.shape)
print(ys)
print(fixed.calls[...])

@nnx.scan(in_axes=nnx.Carry, out_axes=nnx.Carry, length=4)
def count(c):
  return c * 2 + 1
print(count(jnp.int32(1)))

class Box(nnx.Module):
  def __init__(self):
    self.total = nnx.BatchStat(jnp.zeros(2))

  def __call__(self, x):
    self.total[...] += x

box = Box()

@nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
def add_all(b, x):
  b(x)
  return b

out = add_all(box, jnp.arange(8.0).reshape(4, 2))
print(out is box, box.total[...])

try:
  nnx.scan(lambda c, x: c, in_axes=(nnx.Carry, 0), out_axes=0)(0.0, jnp.ones(3))
except ValueError as e:
  print('ValueError:', e)

try:
  nnx.scan(lambda c, x: (c, x), in_axes=(nnx.Carry, 0), out_axes=(nnx.Carry, None))(0.0, jnp.ones(3))
except ValueError as e:
  print('ValueError:', e)

try:
  nnx.scan(lambda c, x: c, in_axes=nnx.Carry, out_axes=nnx.Carry)(0.0, jnp.ones(3))
except ValueError as e:
  print('ValueError:', e)
