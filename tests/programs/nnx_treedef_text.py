import jax
import jax.numpy as jnp
from flax import nnx

# How JAX prints the structure of nnx modules, and how unflatten rebuilds them.
class Cell(nnx.Module):
  def __init__(self):
    self.scale = 2
    self.w = nnx.Param(jnp.ones((2,)))
    self.name = 'cell'
    self.b = nnx.Param(jnp.zeros((2,)))
    self.Zeta = jnp.ones(1)
    self.flag = True

class Outer(nnx.Module):
  def __init__(self):
    self.inner = Cell()
    self.steps = 3
    self.pair = nnx.data((nnx.Param(jnp.ones(())), 'tag'))

leaves, treedef = jax.tree.flatten(Cell())
print(treedef)
print(len(leaves), treedef.num_leaves)
print(jax.tree.structure(Outer()))
rebuilt = jax.tree.unflatten(treedef, leaves)
print(rebuilt)

class Plain(nnx.Module):
  def __init__(self):
    self.units = 4
    self.kernel = nnx.Param(jnp.ones((2, 4)))
    self.act = 'relu'
    self.bias = nnx.Param(jnp.zeros((4,)))

print(jax.eval_shape(lambda: Plain()))
print(jax.jit(lambda p: p)(Plain()))
result = treedef.num_leaves
