import dataclasses
import jax
import jax.numpy as jnp
from flax import nnx

def paths(t):
  return [(jax.tree_util.keystr(p), v) for p, v in jax.tree.flatten_with_path(t)[0]]

@nnx.dataclass
class Cell(nnx.Pytree):
  n: int = nnx.data()
  w: jax.Array
  label: str
  mode: str = nnx.static(default='sum', kw_only=True)

@nnx.dataclass
class Grid(nnx.Pytree):
  cells: list = nnx.data()
  dims: tuple

g = Grid(cells=[Cell(k, jnp.arange(3) * k, f"c{k}") for k in range(1, 3)], dims=(2, 3))
for p, v in paths(g):
  print(p, v)
print(g.cells[0].mode, g.dims)

@dataclasses.dataclass
class Pair(nnx.Pytree):
  left: int = dataclasses.field(metadata={'static': False})
  right: str = dataclasses.field(metadata={'static': True})

print(paths(Pair(3, 'r')))

class Sticky(nnx.Pytree):
  def __init__(self):
    self.a = jnp.ones(2)
    self.b = 'name'
    self.c = nnx.data(0.5)

s = Sticky()
print(paths(s))
s.a = 'now a string'
s.b = nnx.data(7)
s.c = nnx.static(1.5)
print(paths(s))
try:
  s.d = 'x'
  s.d = jnp.zeros(1)
except ValueError as e:
  print('ValueError:', e)
try:
  nnx.data(1, default=2)
except TypeError as e:
  print('TypeError:', e)
result = jax.tree.leaves(g)[1]
