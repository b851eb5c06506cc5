# x.at[...] updates inside jit, fori_loop, grad, vmap and shard_map: static
# indices of every kind, and integer indices that are traced (an index out
# of range drops the update, as JAX's scatter does).
import jax, jax.numpy as jnp, numpy as np
from functools import partial
from jax.sharding import Mesh, PartitionSpec as P

x = jnp.arange(12.0).reshape(4, 3)


@jax.jit
def static(x):
    return (x.at[1].set(-1.0), x.at[-1, 2].add(10.0), x.at[:, 1].multiply(2.0),
            x.at[1:3].min(3.0), x.at[jnp.array([0, 2])].max(5.0), x.at[..., 0].set(jnp.arange(4.0)))


for a in static(x):
    print(a)


@jax.jit
def traced(x, i, j):
    return (x.at[i].set(100.0), x.at[i, j].add(0.5), x.at[j].multiply(-1.0),
            x.at[i].min(2.0), x.at[i].max(jnp.array([9.0, 0.0, 9.0])), x.at[i, 1].get())


for i, j in [(0, 1), (2, -1), (-4, 3), (7, -9)]:
    print(i, j)
    for a in traced(x, i, j):
        print(a)


def fill(n):
    return jax.lax.fori_loop(0, n, lambda k, acc: acc.at[k].set(k * k), jnp.zeros(6, jnp.int32))


print(jax.jit(fill, static_argnums=0)(4))
g = jax.grad(lambda x, i: (x.at[i].multiply(3.0) ** 2).sum())(x, 2)
print(g)
print(jax.vmap(lambda r, i: r.at[i].set(0.0))(x, jnp.array([0, 1, 2, 0])))

mesh = Mesh(np.array(jax.devices()[:4]), ('i',))


@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))
def rotate(block):
    k = jax.lax.axis_index('i')
    return block.at[0, k % 3].set(-k.astype(block.dtype))


result = rotate(x)
print(result)
