import jax
import jax.numpy as jnp
from flax import nnx

class Block(nnx.Module):
  def __init__(self):
    self.lin = nnx.Linear(3, 2, rngs=nnx.Rngs(4))
    self.alias = self.lin

m = Block()
graphdef, state = nnx.split(m)
print(jax.tree.leaves(graphdef), jax.tree.structure(graphdef).num_leaves)

@jax.jit
def apply(graphdef, state, x):
  model = nnx.merge(graphdef, state)
  print('inside', model.lin is model.alias)
  y = model.lin(x)
  model.lin.bias.value = model.lin.bias.value + 1.0
  return y, nnx.state(model)

x = jnp.linspace(0.0, 1.0, 6).reshape(2, 3)
y, new_state = apply(graphdef, state, x)
nnx.update(m, new_state)
print(y)
print(m.lin.bias.value, m.alias.bias.value)

class Holder(nnx.Pytree):
  def __init__(self, g):
    self.g = g
    self.w = jnp.ones(2)

print(len(jax.tree.leaves(Holder(graphdef))))
result = y
