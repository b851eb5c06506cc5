import jax
import jax.numpy as jnp
from flax import nnx

class Affine(nnx.Module):
  def __init__(self, w, b):
    self.w = nnx.Param(w)
    self.b = nnx.Param(b)

  def __call__(self, x):
    return x @ self.w + self.b

ws = jax.random.uniform(jax.random.key(3), (4, 2, 3))
bs = jnp.arange(12.0).reshape(4, 3)
stack = Affine(ws, bs)
xs = jax.random.normal(jax.random.key(5), (4, 2))

def apply(m, x):
  assert m.w.ndim == 2
  return m(x)

y = nnx.vmap(apply, in_axes=0, out_axes=1)(stack, xs)
print(y.shape)
print(y)

shared = Affine(jnp.ones((2, 3)), jnp.zeros(3))
print(nnx.vmap(apply, in_axes=(None, 0))(shared, xs))

made = nnx.vmap(lambda w, b: Affine(w, b))(ws, bs)
print(made.w.shape, made.b.shape)
print(made.b.value)

@nnx.vmap(in_axes=(0, None))
def shift(m, d):
  m.b.value = m.b.value + d
  return m.b.value.sum()

print(shift(stack, 1.0))
print(stack.b.value)
nnx.display(stack)
