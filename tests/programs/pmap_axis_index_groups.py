# Collectives over axis_index_groups under pmap: each listed group reduces,
# gathers or scatters on its own, and a member's rank is its place in its group.
import jax
import jax.numpy as jnp
from jax import lax

x4 = jnp.arange(4.0)
pairs = [[0, 1], [2, 3]]
crossed = [[3, 0], [2, 1]]


def on4(f, x=x4):
    return jax.pmap(f, axis_name='i')(x)


sums = on4(lambda v: lax.psum(v, 'i', axis_index_groups=pairs))
print("psum", sums)
int_sums = on4(lambda v: lax.psum(v, 'i', axis_index_groups=pairs), jnp.arange(4))
print("psum int", int_sums)
bool_sums = on4(lambda v: lax.psum(v > 1, 'i', axis_index_groups=pairs))
print("psum bool", bool_sums)
means = on4(lambda v: lax.pmean(v, 'i', axis_index_groups=pairs))
print("pmean", means)
maxes = on4(lambda v: lax.pmax(v, 'i', axis_index_groups=crossed))
mins = on4(lambda v: lax.pmin(v, 'i', axis_index_groups=crossed))
print("pmax pmin", maxes, mins)
gathered = on4(lambda v: lax.all_gather(v, 'i', axis_index_groups=crossed))
print("all_gather", gathered)
tiled = on4(lambda v: lax.all_gather(jnp.stack([v, -v]), 'i', axis=0, tiled=True,
                                     axis_index_groups=pairs))
print("all_gather tiled", tiled)
gathered_axis1 = on4(lambda v: lax.all_gather(jnp.stack([v, 10 * v]), 'i', axis=1,
                                              axis_index_groups=crossed))
print("all_gather axis 1", gathered_axis1)
scattered = on4(lambda v: lax.psum_scatter(jnp.stack([v, 10 * v]), 'i',
                                           axis_index_groups=crossed))
print("psum_scatter", scattered)
scattered_tiled = on4(lambda v: lax.psum_scatter(v * jnp.arange(1.0, 5.0), 'i',
                                                 axis_index_groups=pairs, tiled=True))
print("psum_scatter tiled", scattered_tiled)
exchanged = on4(lambda v: lax.all_to_all(jnp.stack([v, 10 * v]), 'i', 0, 0,
                                         axis_index_groups=crossed))
print("all_to_all", exchanged)

# Groups of unequal sizes: the reductions accept them, and pmean divides by
# the size of the first group whatever the others'.
uneven = [[0], [1, 2, 3]]
print("uneven", on4(lambda v: lax.psum(v, 'i', axis_index_groups=uneven)),
      on4(lambda v: lax.pmax(v, 'i', axis_index_groups=[[0, 2, 3], [1]])),
      on4(lambda v: lax.pmean(v, 'i', axis_index_groups=uneven)),
      on4(lambda v: lax.pmean(v, 'i', axis_index_groups=[[0, 1, 2], [3]])))
# all_to_all whose first group has one member leaves its operand as it is.
print("all_to_all of one", on4(lambda v: lax.all_to_all(v[None], 'i', 0, 0,
                                                       axis_index_groups=uneven)))
# A constant is multiplied by the first group's size.
print("constant", on4(lambda v: v * lax.psum(1, 'i', axis_index_groups=[[0, 1, 2], [3]])),
      on4(lambda v: v + lax.pmean(3, 'i', axis_index_groups=[[0, 1, 2], [3]])),
      on4(lambda v: v + lax.psum(1, 'i', axis_index_groups=[[0, 1]])))
# A boolean is converted to int32 first, which traces it: the groups count.
print("boolean", on4(lambda v: v + lax.psum(True, 'i', axis_index_groups=[[0, 1, 2], [3]])))
one_group = on4(lambda v: lax.psum(v, 'i', axis_index_groups=[[3, 1, 2, 0]]))
singletons = on4(lambda v: lax.all_gather(v, 'i', axis_index_groups=[[0], [1], [2], [3]]))
print("one group, singletons", one_group, singletons)

# Eight devices.
x8 = jnp.arange(8.0)
evens_odds = [[0, 2, 4, 6], [1, 3, 5, 7]]
halves = [[7, 6, 5, 4], [0, 1, 2, 3]]


def on8(f):
    return jax.pmap(f, axis_name='i')(x8)


sums8 = on8(lambda v: lax.psum(v, 'i', axis_index_groups=evens_odds))
means8 = on8(lambda v: lax.pmean(v, 'i', axis_index_groups=[[0, 1], [2, 3], [4, 5], [6, 7]]))
maxes8 = on8(lambda v: lax.pmax(-v, 'i', axis_index_groups=halves))
gathered8 = on8(lambda v: lax.all_gather(v, 'i', axis_index_groups=halves))
scattered8 = on8(lambda v: lax.psum_scatter(v * jnp.arange(1.0, 5.0), 'i',
                                            axis_index_groups=halves))
exchanged8 = on8(lambda v: lax.all_to_all(v * jnp.arange(1.0, 5.0), 'i', 0, 0,
                                          axis_index_groups=evens_odds))
print("eight", sums8, means8, maxes8)
print(gathered8)
print(scattered8)
print(exchanged8)

# Pytrees, tuples of groups, and jit inside pmap.
tree = on4(lambda v: lax.psum({'a': v, 'b': (2 * v,)}, 'i', axis_index_groups=((0, 1), (2, 3))))
jitted = jax.pmap(jax.jit(lambda v: lax.psum(v, ('i',), axis_index_groups=pairs)),
                  axis_name='i')(x4)
print("tree", tree, jitted)

result = [sums, int_sums, bool_sums, means, maxes, mins, gathered, tiled, gathered_axis1,
          scattered, scattered_tiled, exchanged, one_group, singletons,
          sums8, means8, maxes8, gathered8, scattered8, exchanged8, tree, jitted]
