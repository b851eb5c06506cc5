import jax
from jax import tree_util as tu

out = tu.tree_map(lambda p, q: p + q, {"w": {"a": 1, "b": 2}}, {"w": {"a": 1, "c": 2}})
