import jax.numpy as jnp
from flax import nnx

# The text of a GraphDef: nodes, attributes and the number of leaves.
class Tally(nnx.Variable):
  pass

class Leaf(nnx.Module):
  def __init__(self):
    self.k = nnx.Param(jnp.ones(3))
    self.offset = jnp.zeros(1)
    self.label = 'leaf'

class Tree(nnx.Module):
  def __init__(self):
    self.left = Leaf()
    self.right = self.left
    self.hits = Tally(jnp.array(0))
    self.alias = self.hits
    self.depth = 2
    self.extra = nnx.data(7)

graphdef, state = nnx.split(Tree())
print(graphdef)
print(repr(nnx.graphdef(Leaf())))
print(f'{nnx.split(Leaf())[0]}')
result = len(str(graphdef))
