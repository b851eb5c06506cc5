import jax
import jax.numpy as jnp
import flax
from flax import nnx

# An nnx object may only change under the trace it was made in.
class Counter(nnx.Pytree):
  def __init__(self):
    self.count = nnx.data(0)

c = Counter()

def bump(x):
  c.count += 1
  return x

for name, t in [('vmap', jax.vmap), ('jit', jax.jit), ('grad', jax.grad)]:
  try:
    t(bump)(jnp.ones(()) if name == 'grad' else jnp.arange(3.0))
  except flax.errors.TraceContextError as e:
    print(name, type(e).__name__, isinstance(e, flax.errors.FlaxError), e)

# Made inside the trace: free to change there.
@jax.jit
def inside(x):
  d = Counter()
  d.count = x * 2
  return d.count

print(inside(jnp.float32(3.0)))

# A module rebuilt from its pytree inside jit belongs to that trace.
class Box(nnx.Module):
  def __init__(self):
    self.w = nnx.Param(jnp.ones(2))
    self.calls = 0

@jax.jit
def touch(m):
  m.calls = 5
  return m.w[...] * 2

print(touch(Box()))

# nnx transforms run the function on the caller's modules.
box = Box()
def loss(m):
  m.calls = m.calls + 1
  return jnp.sum(m.w[...] ** 2)

print(nnx.grad(loss)(box)['w'][...], box.calls)

# Outside any trace again, the object is free to change.
c.count = 10
print(c.count)
try:
  jax.vmap(bump)(jnp.ones(2))
except Exception as e:
  print(type(e).__name__)
result = c.count
