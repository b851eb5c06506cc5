# Dict keys that do not compare with each other cannot be put in pytree
# order: JAX refuses them; keys of one kind are sorted.
import jax

for tree in [{1: 7, "y": 42}, {"b": 1, "a": 2}, {3: 1, 1: 2, 2: 3}, {(1, 2): 0, (0, 5): 1}]:
    try:
        print(jax.tree.map(lambda x: x + 1, tree), jax.tree.leaves(tree))
    except ValueError as e:
        print("ValueError:", e)
try:
    jax.tree.flatten({None: 1, 0: 2})
except ValueError as e:
    print("ValueError:", e)
print(jax.tree.structure({"a": 1, "b": {"c": 2}}))
