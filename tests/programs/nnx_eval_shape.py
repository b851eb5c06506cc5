import jax
import jax.numpy as jnp
from flax import nnx

class Model(nnx.Module):
    def __init__(self, din, rngs):
        self.lin = nnx.Linear(din, 3, rngs=rngs)
        self.norm = nnx.LayerNorm(3, rngs=rngs)

abstract = nnx.eval_shape(lambda: Model(4, nnx.Rngs(0)))
print(type(abstract).__name__)
print(abstract.lin.kernel.value)
print(abstract.norm.scale.value, abstract.lin.in_features)
graphdef, state = nnx.split(abstract)
print(jax.tree_util.tree_map(lambda s: (s.shape, str(s.dtype)), nnx.to_pure_dict(state)))

lin = nnx.Linear(4, 2, rngs=nnx.Rngs(1))
out = nnx.eval_shape(lambda m, x: m(x), lin, jnp.ones((5, 4)))
print(out.shape, out.dtype)
print(lin.kernel[...].shape)

sized = nnx.eval_shape(lambda: Model(6, rngs=nnx.Rngs(2)))
print(sized.lin.kernel.value.shape)

# Restoring concrete values into the abstract model.
real = Model(4, nnx.Rngs(0))
nnx.replace_by_pure_dict(state, nnx.to_pure_dict(nnx.state(real)))
model = nnx.merge(graphdef, state)
print(model.lin.kernel[...][0])
result = model.lin(jnp.ones((1, 4)))
