# tree_map over several trees, is_leaf, None, tree_reduce, tree_all,
# tree_transpose and PyTreeDef methods.
import collections

import jax
import jax.numpy as jnp
from jax import tree_util as tu

t = {"b": [1, 2], "a": (3, None), "c": {"z": 4, "y": 5}}
s = tu.tree_structure(t)
print(s, s.num_leaves, s.num_nodes)
print(s.children())
print(s.unflatten(list(range(5))))
print(s == tu.tree_structure(t), s == tu.tree_structure([1]), s != tu.tree_structure((1,)))
print(tu.tree_structure(None), tu.tree_leaves(None), tu.tree_structure([None, 1]), tu.tree_structure(None).num_nodes)
print(tu.tree_structure((1,)), tu.tree_structure(()), tu.tree_structure([]), tu.tree_structure({}), tu.tree_structure(jnp.ones(2)))
print(tu.tree_structure([1, (2, 3)]).flatten_up_to([jnp.ones(2), ({"q": 1}, 3)]))
print(tu.tree_unflatten(tu.tree_structure({"a": 1, "b": (2, 3)}), "xyz"))
print(jax.tree.unflatten(tu.tree_structure([1, (2,)]), [7, 8]))
print(tu.tree_map(lambda a, b, c: a + b * c, [1, (2, 3)], [10, (20, 30)], [2, (2, 2)]))
print(tu.tree_map(lambda x, y: (x, y), [1, 2], [[3, 4], (5,)]))
print(tu.tree_map(lambda x, y: x - y, {"b": 1, "a": 2}, {"a": 3, "b": 4}))
print(tu.tree_map(lambda x: x * 2, {"a": None, "b": 1}))
print(tu.tree_map(lambda x: x is None, [1, None], is_leaf=lambda x: x is None))
print(tu.tree_leaves([1, None, 2], is_leaf=lambda x: x is None))
print(tu.tree_leaves([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and len(x) == 2))
print(tu.tree_flatten([1, [2]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1))
print(tu.tree_structure([1, [2]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1))
print(tu.tree_reduce(lambda a, b: a + b, [1, 2, 3], 10), jax.tree.reduce(lambda a, b: a * b, (2, [3, 4])))
print(jax.tree.reduce(lambda a, b: a + b, [1, 2], initializer=100))
print(tu.tree_all([1, True, 2]), tu.tree_all([1, 0]), tu.tree_all([]), jax.tree.all({"a": True}))
print(tu.tree_transpose(tu.tree_structure([1, 2, 3]), tu.tree_structure((1, 2)), [(1, 2), (3, 4), (5, 6)]))
print(jax.tree.transpose(tu.tree_structure([1, 2]), None, [{"a": 1, "b": 2}, {"a": 3, "b": 4}]))
print(tu.treedef_is_leaf(tu.tree_structure(1)), tu.treedef_is_leaf(tu.tree_structure(None)), tu.treedef_is_leaf(tu.tree_structure([1])))
print(tu.treedef_children(tu.tree_structure([1, (2,)])), tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1, 2])]))
print(tu.all_leaves([1, 2]), tu.all_leaves([[1], 2]))
dd = collections.defaultdict(list, {"b": 1, "a": (2,)})
ds = tu.tree_structure(dd)
print(ds, ds.unflatten([5, 6]), tu.tree_leaves(dd))
od = collections.OrderedDict([("b", 1), ("a", 2)])
print(tu.tree_structure(od), tu.tree_leaves(od), list(tu.tree_map(lambda x: x * 3, od).items()))
print(tu.tree_leaves({2: "x", 1: "y"}))
for tree, other in [([1, 2], (1, 2)), ([1, 2], [1, 2, 3]), ((1, 2), (1,)), ({"a": 1}, {"b": 1}), ({"a": 1}, [1]), (None, 1), ([1], 3)]:
    try:
        tu.tree_structure(tree).flatten_up_to(other)
    except ValueError as e:
        print(e)
for bad in [[1], [1, 2, 3]]:
    try:
        tu.tree_structure([1, 2]).unflatten(bad)
    except ValueError as e:
        print(e)
try:
    tu.tree_transpose(tu.tree_structure([1, 2]), tu.tree_structure((1, 2)), [(1, 2), (3,)])
except TypeError as e:
    print(e)
result = tu.tree_leaves(tu.tree_map(lambda x, y: x * y, {"k": [jnp.arange(3.0), 2.0]}, {"k": [2.0, jnp.ones(2)]}))
