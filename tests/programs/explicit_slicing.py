# Indexing arrays split over explicit mesh axes. Eagerly, JAX indexes a
# sharded array with a gather, which refuses to pick from a split
# dimension; inside jit an index is a slice, which keeps the operand's
# layout where the new length still divides over the mesh axes.
import jax, jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit, AxisType.Explicit))


def show(name, f):
    try:
        r = f()
        print(name, jax.typeof(r), r.sharding.spec, r.sum())
    except Exception as e:
        print(name, type(e).__name__, str(e).split('\n')[0])


with jax.set_mesh(mesh):
    w = jax.device_put(jnp.arange(2 * 8 * 8.0).reshape(2, 8, 8), P(None, None, 'model'))
    x = jax.device_put(jnp.arange(64.0).reshape(8, 8), P('data', 'model'))
    # Eager: picking from whole dimensions keeps the rest's layout.
    show('w[0]', lambda: w[0])
    show('w[-1]', lambda: w[-1])
    show('w[0:1]', lambda: w[0:1])
    show('w[1, 2]', lambda: w[1, 2])
    show('w[jnp.array([1, 0])]', lambda: w[jnp.array([1, 0])])
    show('x[None]', lambda: x[None])
    show('x[:]', lambda: x[:])
    # Eager: picking from a split dimension is refused.
    show('x[0]', lambda: x[0])
    show('x[:, 1:3]', lambda: x[:, 1:3])
    show('x[::2]', lambda: x[::2])
    show('x[..., 0]', lambda: x[..., 0])
    show('x[jnp.array([0, 2])]', lambda: x[jnp.array([0, 2])])
    show('w[1, 2, 3]', lambda: w[1, 2, 3])
    # lax.slice keeps the layout.
    show('lax.slice', lambda: jax.lax.slice(x, (0, 0), (4, 8)))
    show('index_in_dim', lambda: jax.lax.index_in_dim(w, 1, 0, keepdims=False))
    show('squeeze', lambda: jnp.squeeze(w[1:2], 0))
    # Inside jit: slices and dynamic slices.
    show('jit w[i]', lambda: jax.jit(lambda w, i: w[i])(w, 1))
    show('jit x[2:6]', lambda: jax.jit(lambda x: x[2:6])(x))
    show('jit x[::2]', lambda: jax.jit(lambda x: x[::2])(x))
    show('jit x[:, ::-1]', lambda: jax.jit(lambda x: x[:, ::-1])(x))
    show('jit x[1:3]', lambda: jax.jit(lambda x: x[1:3])(x))
    show('jit x[i]', lambda: jax.jit(lambda x, i: x[i])(x, 1))
    show('jit dynamic_slice 2', lambda: jax.jit(lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 2, 1))(x, 1))
    show('jit dynamic_slice 4', lambda: jax.jit(lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 4, 1))(x, 4))
    show('jit take', lambda: jax.jit(lambda w: jnp.take(w, jnp.array([1, 1, 0]), axis=0))(w))
    show('jit take split', lambda: jax.jit(lambda x: jnp.take(x, jnp.array([1, 0]), axis=1))(x))
