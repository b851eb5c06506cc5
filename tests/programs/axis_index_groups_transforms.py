# axis_index_groups through grad and jvp under pmap, under shard_map, and the
# calls JAX refuses (caught here so that one program shows them all).
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

pairs = [[0, 1], [2, 3]]
crossed = [[3, 0], [2, 1]]
x = jnp.arange(4.0)


def on4(f):
    return jax.pmap(f, axis_name='i')(x)


grads = [
    on4(jax.grad(lambda v: lax.psum(v * v, 'i', axis_index_groups=pairs))),
    on4(jax.grad(lambda v: lax.psum(v, 'i', axis_index_groups=crossed) * v)),
    on4(jax.grad(lambda v: lax.pmean(v, 'i', axis_index_groups=pairs) * v)),
    on4(jax.grad(lambda v: (lax.all_gather(v, 'i', axis_index_groups=crossed)
                            * jnp.array([1.0, 2.0])).sum())),
    on4(jax.grad(lambda v: lax.psum_scatter(jnp.stack([v, 2 * v]), 'i',
                                            axis_index_groups=crossed) * v)),
    on4(jax.grad(lambda v: (lax.all_to_all(jnp.stack([v, 3 * v]), 'i', 0, 0,
                                           axis_index_groups=crossed)
                            * jnp.array([1.0, 5.0])).sum())),
]
tangents = on4(lambda v: jax.jvp(lambda u: lax.psum(u * u, 'i', axis_index_groups=pairs),
                                 (v,), (v,))[1])
print("grads", grads)
print("jvp", tangents)

# Under shard_map the groups split each group of devices along the axes named.
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('x', 'y'))
y = jax.device_put(jnp.arange(8.0).reshape(2, 4), NamedSharding(mesh, P('x', 'y')))


def smap(f, check_vma, out_specs=P('x', 'y')):
    return jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=out_specs,
                         check_vma=check_vma)(y)


mapped = [
    smap(lambda v: lax.psum(v, 'y', axis_index_groups=[[0, 3], [1, 2]]), False),
    smap(lambda v: lax.psum(v, ('y', 'x'), axis_index_groups=[[0, 1, 2, 3], [4, 5, 6, 7]]),
         False),
    smap(lambda v: lax.pmean(v, ('x', 'y'), axis_index_groups=[[7, 0], [1, 2], [3, 4],
                                                              [5, 6]]), False),
    smap(lambda v: lax.pmax(v, 'y', axis_index_groups=crossed), True),
    smap(lambda v: lax.pmin(v, 'x', axis_index_groups=[[1], [0]]), True),
    smap(lambda v: lax.all_gather(v, 'y', axis_index_groups=crossed, axis=1, tiled=True), True),
    smap(lambda v: lax.psum_scatter(jnp.concatenate([v, 2 * v], axis=1), 'y',
                                    scatter_dimension=1, axis_index_groups=pairs, tiled=True),
         True),
    smap(lambda v: v * lax.psum(1, 'y', axis_index_groups=pairs), True),
]
print("shard_map", mapped)


def refused(name, f):
    # XLA's own refusals are JaxRuntimeError in JAX, a RuntimeError.
    try:
        f()
        print(name, "ran")
    except NotImplementedError:
        print(name, "NotImplementedError")
    except RuntimeError:
        print(name, "RuntimeError")
    except Exception as e:
        print(name, type(e).__name__)


refused("duplicate", lambda: on4(lambda v: lax.psum(v, 'i', axis_index_groups=[[0, 1], [1, 2]])))
refused("negative", lambda: on4(lambda v: lax.pmax(v, 'i', axis_index_groups=[[-1, 1], [2, 3]])))
refused("missing", lambda: on4(lambda v: lax.psum(v, 'i', axis_index_groups=[[0, 1]])))
refused("past the axis", lambda: on4(lambda v: lax.pmin(v, 'i',
                                                        axis_index_groups=[[0, 1], [2, 3],
                                                                           [4, 5]])))
refused("uneven all_gather", lambda: on4(lambda v: lax.all_gather(
    v, 'i', axis_index_groups=[[0], [1, 2, 3]])))
refused("uneven psum_scatter", lambda: on4(lambda v: lax.psum_scatter(
    v[None], 'i', axis_index_groups=[[0], [1, 2, 3]])))
refused("uneven all_to_all", lambda: on4(lambda v: lax.all_to_all(
    jnp.stack([v, v, v]), 'i', 0, 0, axis_index_groups=[[0, 1, 2], [3]])))
refused("no groups", lambda: on4(lambda v: lax.psum(v, 'i', axis_index_groups=[])))
refused("an empty group", lambda: on4(lambda v: lax.psum(v, 'i',
                                                         axis_index_groups=[[], [0, 1, 2, 3]])))
refused("wrong scatter size", lambda: on4(lambda v: lax.psum_scatter(
    jnp.stack([v, v, v, v]), 'i', axis_index_groups=pairs)))
refused("positional axis", lambda: on4(lambda v: lax.psum(v[None], ('i', 0),
                                                          axis_index_groups=pairs)))
refused("vmap psum", lambda: jax.vmap(lambda v: lax.psum(v, 'i', axis_index_groups=pairs),
                                      axis_name='i')(x))
refused("vmap all_gather", lambda: jax.vmap(
    lambda v: lax.all_gather(v, 'i', axis_index_groups=pairs), axis_name='i')(x))
refused("vmap all_to_all", lambda: jax.vmap(
    lambda v: lax.all_to_all(jnp.stack([v, v]), 'i', 0, 0, axis_index_groups=pairs),
    axis_name='i')(x))
refused("vmap all_to_all of the wrong size", lambda: jax.vmap(
    lambda v: lax.all_to_all(v[None], 'i', 0, 0, axis_index_groups=pairs), axis_name='i')(x))
refused("shard_map psum", lambda: smap(lambda v: lax.psum(v, 'y', axis_index_groups=pairs),
                                       True))
refused("shard_map pmean", lambda: smap(lambda v: lax.pmean(v, 'y', axis_index_groups=pairs),
                                        True))
refused("invarying", lambda: on4(lambda v: lax.all_gather(v, 'i', axis_index_groups=pairs,
                                                          to='invarying')))
refused("pmax grad", lambda: on4(jax.grad(lambda v: lax.pmax(v, 'i', axis_index_groups=pairs))))
refused("groups positionally", lambda: on4(lambda v: lax.psum(v, 'i', pairs)))
refused("misspelt keyword", lambda: on4(lambda v: lax.pmean(v, 'i', axis_index_group=pairs)))
refused("unbound axis", lambda: on4(lambda v: lax.psum(v, 'j', axis_index_groups=pairs)))

result = grads + [tangents] + mapped
