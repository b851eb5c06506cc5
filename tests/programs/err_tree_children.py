from jax import tree_util as tu

out = tu.tree_map_with_path(lambda k, p, q: p, {"a": 1}, {"a": 1, "b": 2})
