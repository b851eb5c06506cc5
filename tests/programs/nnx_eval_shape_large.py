# jax.eval_shape of a jitted constructor of an nnx model with wide layers:
# the parameters are abstract, their draws never computed (a host
# computation of these 2048-wide kernels would take seconds).
from functools import partial

import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din, width, depth, rngs):
        self.embed = nnx.Embed(din, width, rngs=rngs)
        self.layers = nnx.List(
            [nnx.Linear(width, width, rngs=rngs) for _ in range(depth)]
        )
        self.conv = nnx.Conv(width, 8, kernel_size=(3,), rngs=rngs)
        self.head = nnx.Linear(
            width, 4, kernel_init=nnx.initializers.glorot_uniform(), rngs=rngs
        )


@partial(jax.jit, static_argnums=(0, 1, 2))
def init_state(din, width, depth):
    return nnx.state(MLP(din, width, depth, rngs=nnx.Rngs(0)))


abstract = jax.eval_shape(partial(init_state, 512, 2048, 24))
print(abstract["embed"]["embedding"].value)
print(abstract["layers"][0]["kernel"].value, abstract["layers"][23]["bias"].value)
print(abstract["conv"]["kernel"].value, abstract["head"]["kernel"].value)
print(len(jax.tree.leaves(abstract)))

# The same constructor run for real, small: the jitted parameters are the
# eagerly built ones.
small = init_state(16, 32, 2)
eager = nnx.state(MLP(16, 32, 2, rngs=nnx.Rngs(0)))
same = jax.tree.map(lambda a, b: bool(jnp.all(a == b)), small, eager)
print(jax.tree.leaves(same))
print(small["head"]["kernel"].value[:2])
print(small["layers"][1]["kernel"].value[0, :4])

# A model made under jit from a key the function is given.
@jax.jit
def from_key(k):
    model = nnx.Linear(8, 3, rngs=nnx.Rngs(params=k))
    return model.kernel.value


k = jax.random.key(5)
print(bool(jnp.all(from_key(k) == nnx.Linear(8, 3, rngs=nnx.Rngs(params=k)).kernel.value)))
print(jax.eval_shape(lambda: nnx.Linear(2048, 2048, rngs=nnx.Rngs(1))).kernel.value)
