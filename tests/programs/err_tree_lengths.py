import jax
from jax import tree_util as tu

a = {"x": [1, 2], "y": 3}
b = {"x": [1, 2, 3], "y": 4}
out = tu.tree_map(lambda p, q: p + q, a, b)
