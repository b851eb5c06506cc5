# An nnx.Rngs inside a pytree that goes through jax.jit: its count is a
# uint32 array and its key a typed key, both traced inside.
import jax
import jax.numpy as jnp
from flax import nnx

rngs = nnx.Rngs(0, params=7)
rngs.params()
rngs.params()
leaves = jax.tree.leaves(rngs)
print([type(l).__name__ for l in leaves])
print(leaves[0], leaves[0].dtype, leaves[0].shape)


class Block(nnx.Module):
    def __init__(self, rngs):
        self.w = nnx.Param(jax.random.normal(rngs.params(), (3,)))
        self.rngs = rngs
        self.width = 3


block = Block(rngs)


@jax.jit
def read(model):
    print("width inside:", model.width)
    print("count inside:", model.rngs.params.count.value)
    return model.w.value.sum() + model.rngs.params.count.value


print(read(block))
counts = jax.jit(lambda r: (r.default.count.value, r.params.count.value + 1))(rngs)
print(counts)
out = jax.jit(lambda m: m)(block)
print(type(out.rngs.params.count.value).__name__, out.rngs.params.count.value)
print(out.rngs.params().shape, rngs.params.count.value)
