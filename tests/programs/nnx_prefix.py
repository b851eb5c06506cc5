import jax
import jax.numpy as jnp
from flax import nnx


class Block(nnx.Module):
    def __init__(self, rngs):
        self.dense = nnx.Linear(3, 2, rngs=rngs)
        self.norm = nnx.BatchNorm(2, rngs=rngs)
        self.noise = nnx.Dropout(0.2, rngs=rngs)
        self.layers = nnx.List([nnx.Linear(2, 2, rngs=rngs), nnx.Linear(2, 1, rngs=rngs)])


block = Block(nnx.Rngs(params=0, dropout=3))

# A mapping of filters: the first that a variable passes gives its prefix.
axes = nnx.prefix(block, {"dropout": 0, nnx.BatchStat: 1, ...: None}, graph=False)
print(jax.tree.leaves(axes))
print(axes.noise.rngs.key, axes.noise.rngs.count, axes.norm.mean, axes.dense.kernel)
print(axes.layers[1].bias)

# A function of the path and the variable.
paths = nnx.prefix(block, lambda path, v: "/".join(str(p) for p in path), graph=False)
print(jax.tree.leaves(paths))
kinds = nnx.prefix(block, lambda path, v: type(v).__name__, graph=False)
print(jax.tree.leaves(kinds))

# Plain pytrees with variables inside.
d = {"w": nnx.Param(jnp.ones(2)), "s": (nnx.BatchStat(jnp.zeros(3)), nnx.Param(jnp.zeros(1)))}
print(nnx.prefix(d, {nnx.Param: 0, nnx.BatchStat: None}, graph=False))

try:
    nnx.prefix(block, {nnx.Param: 0}, graph=False)
except ValueError as e:
    print("ValueError", str(e)[:60])
result = jax.tree.leaves(nnx.prefix(d, lambda path, v: len(path), graph=False))
