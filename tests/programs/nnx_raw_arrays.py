import jax
import jax.numpy as jnp
from flax import nnx

# Arrays a module holds outside variables are leaves of its state.
class Inner(nnx.Pytree):
  def __init__(self, v):
    self.v = jnp.array(v)
    self.tag = 'inner'

class Outer(nnx.Module):
  def __init__(self):
    self.w = nnx.Param(jnp.arange(3.0))
    self.shared = Inner(2.5)
    self.again = self.shared
    self.pair = nnx.List([jnp.ones(2), jnp.zeros(1)])
    self.scale = jnp.float32(3.0)

m = Outer()
graphdef, state = nnx.split(m)
print(state)
graphdef, params, rest = nnx.split(m, nnx.Param, ...)
print(params)
print(rest)
print(nnx.state(m, nnx.Param))

@jax.jit
def step(graphdef, state):
  m = nnx.merge(graphdef, state)
  assert m.shared is m.again
  m.shared.v = m.shared.v * 2
  m.pair[0] = m.pair[0] + 1
  return nnx.state(m)

new = step(graphdef, state)
nnx.update(m, new)
print(m.shared.v, m.again.v, m.pair[0], m.scale)
copy = nnx.merge(graphdef, jax.tree.map(lambda x: x * 10, state))
print(copy.scale, copy.shared.v, copy.shared is copy.again, copy.w[...])

class Loose(nnx.Pytree, pytree=False):
  def __init__(self):
    self.items = [jnp.array(1), jnp.array(2)]
    self.name = 'x'

print(nnx.state(Loose()))
result = nnx.state(m)['scale']
