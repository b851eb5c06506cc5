# A checkpoint policy written in Python decides only what is saved, never a
# value: gradients through it equal the plain function's, also in shard_map.
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def f(w, x):
    return jnp.sum(jnp.tanh(jnp.dot(x, w)) ** 2)


saved = jax.checkpoint(f, policy=lambda prim, *_, **__: str(prim) == "dot_general")
w = jnp.arange(12.0).reshape(4, 3) / 10
x = jnp.arange(8.0).reshape(2, 4) / 7
print(jax.grad(f)(w, x))
print(jax.grad(saved)(w, x))

mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))


@partial(jax.remat, policy=lambda op, *_, **__: str(op) != "all_gather")
def gathered(w_frag, x):
    w_all = jax.lax.all_gather(w_frag, "i", tiled=True)
    return jnp.tanh(x @ w_all)


@partial(jax.shard_map, mesh=mesh, in_specs=(P("i"), P()), out_specs=P())
def loss(w_frag, x):
    return jax.lax.pmean(jnp.sum(gathered(w_frag, x)), "i")


g = jax.jit(jax.grad(loss))(w, x)
print(g)
result = g
