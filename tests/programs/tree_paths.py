# Key paths: flatten_with_path, leaves_with_path, map_with_path, keystr and
# the key entry classes.
import collections
import typing

import jax
import jax.numpy as jnp
from jax import tree_util as tu

Pair = collections.namedtuple("Pair", ["left", "right"])


class Span(typing.NamedTuple):
    lo: float
    hi: float


tree = {"w": [jnp.array([1.0, 2.0]), 3.0], "b": (None, 4), "p": Pair(5, 6), "s": Span(7.0, 8.0)}
leaves, treedef = tu.tree_flatten_with_path(tree)
for path, leaf in leaves:
    print(tu.keystr(path), path, leaf)
print(treedef)
print(tu.keystr(leaves[0][0], simple=True, separator="/"))
print(jax.tree.leaves_with_path([1, {"z": 2, "a": 3}]))
print(jax.tree.flatten_with_path((1, [2]))[0])
named = tu.tree_map_with_path(lambda p, x: tu.keystr(p) + "=" + str(x), {"a": [1, 2], "b": Pair(3, 4)})
print(named)
print(jax.tree.map_with_path(lambda p, x, y: len(p) * x + y, [1, [2, 3]], [10, [20, 30]]))
k = (tu.DictKey("a"), tu.SequenceKey(0), tu.GetAttrKey("x"), tu.FlattenedIndexKey(3))
print(k)
print([str(e) for e in k], tu.keystr(k))
print(k[0].key, k[1].idx, k[2].name, k[3].key)
print(tu.DictKey("a") == tu.DictKey("a"), tu.DictKey("a") == tu.DictKey("b"), tu.SequenceKey(1) == tu.DictKey(1))
print(isinstance(leaves[0][0][0], tu.DictKey), isinstance(leaves[0][0][1], tu.SequenceKey))
print(tu.tree_leaves_with_path([1, [2]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1))
od = collections.OrderedDict([("z", 1), ("a", 2)])
print(tu.tree_flatten_with_path(od))
dd = collections.defaultdict(list, {"z": 1, "a": 2})
print(tu.tree_flatten_with_path(dd))
result = [tu.keystr(p) for p, _ in leaves]
