import collections

import jax

Pair = collections.namedtuple("Pair", ["l", "r"])
out = jax.tree.map(lambda p, q: p + q, [Pair(1, 2), 3], [(1, 2), 3])
