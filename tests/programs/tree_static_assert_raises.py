import dataclasses
import jax
import jax.numpy as jnp
import numpy as np

@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Scaled:
    w: jax.Array
    name: str = jax.tree.static(default="lin")
    factor: float = jax.tree.static(default=2.0, metadata={"units": "m"})

s = Scaled(w=jnp.arange(3.0))
print(s)
leaves, treedef = jax.tree.flatten(s)
print(leaves)
print(treedef)
print(jax.tree.unflatten(treedef, [jnp.ones(3)]))
print(jax.tree.map(lambda x: x * 3, Scaled(jnp.ones(2), "other", 0.5)))
f = dataclasses.fields(Scaled)
print([x.name for x in f], f[1].metadata["static"], dict(f[2].metadata))
try:
    jax.tree.static(1)
except TypeError as e:
    print("TypeError", e)

print(np.testing.assert_raises(AssertionError, np.testing.assert_allclose, jnp.ones(2), jnp.zeros(2)))
np.testing.assert_raises(ZeroDivisionError, lambda a, b: a / b, 1, b=0)
np.testing.assert_raises((KeyError, IndexError), lambda: [][1])
def quiet(x):
    return x
for exc in [ValueError, (KeyError, IndexError)]:
    try:
        np.testing.assert_raises(exc, quiet, 3)
    except AssertionError as e:
        print("AssertionError", e)
try:
    np.testing.assert_raises(KeyError, lambda: 1 / 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
result = leaves
