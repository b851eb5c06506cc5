import operator

import jax
import jax.numpy as jnp

# A prefix's leaves repeated over the full tree's subtrees.
prefix = {"w": 1.5, "rest": (2, "s")}
full = {"w": [0, 0, 0], "rest": ({"a": 0, "b": (0, 0)}, [None, 0])}
print(jax.tree.broadcast(prefix, full))
print(jax.tree_util.tree_broadcast((7, None), ([1, 2], None)))
print(jax.tree.broadcast([jnp.ones(2), 3], [(1, 2), {"k": 0}]))
is_pair = lambda x: isinstance(x, tuple) and len(x) == 2
print(jax.tree.broadcast([(1, 2), 9], [[0, 0], [5, 6, 7]], is_leaf=is_pair))
try:
    jax.tree.broadcast((1, 2), (0, 0, 0))
except ValueError as e:
    print("ValueError", str(e).splitlines()[0])

# A balanced reduction: the order of the combinations shows in strings.
join = lambda a, b: "(" + a + "+" + b + ")"
print(jax.tree.reduce_associative(join, ["a", ("b", "c"), {"d": "d", "e": ["e", "f"]}]))
print(jax.tree_util.tree_reduce_associative(operator.mul, [1, 2, 3, 4, 5]))
print(jax.tree.reduce_associative(operator.add, [], identity=10))
print(jax.tree.reduce_associative(operator.add, [jnp.arange(3), (jnp.ones(3), 2.5)]))
try:
    jax.tree.reduce_associative(operator.add, {})
except TypeError as e:
    print("TypeError", e)

# Cloning a key gives the same draws; jax.nn.identity returns its argument
# as an array.
key = jax.random.key(3)
k2 = jax.random.clone(key)
print(jax.random.uniform(key, (3,)) == jax.random.uniform(k2, (3,)))
legacy = jax.random.PRNGKey(4)
print(jax.random.clone(legacy), jax.random.normal(jax.random.clone(legacy), (2,)))
print(jax.nn.identity(jnp.array([-1.0, 0.5])), jax.nn.identity(3), jax.nn.identity(2.5))
print(jax.grad(lambda x: jax.nn.identity(x) * 3.0)(1.0))
try:
    jax.nn.identity([1, 2])
except TypeError as e:
    print("TypeError", e)

result = jax.tree.broadcast(prefix, full)
