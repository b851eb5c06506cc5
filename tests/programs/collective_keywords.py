# The collectives' arguments as JAX's signatures take them: by position or
# keyword where allowed, keyword-only ones refused positionally, unknown
# keywords refused; and pshuffle, pswapaxes and pcast.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(4.0)


def on4(f, v=x):
    return jax.pmap(f, axis_name='i')(v)


def refused(name, f, show=False):
    try:
        f()
        print(name, "ran")
    except NotImplementedError:
        print(name, "NotImplementedError")
    except Exception as e:
        print(name, type(e).__name__, str(e) if show else "")


by_keyword = on4(lambda v: lax.psum(x=v, axis_name='i', axis_index_groups=None))
permuted = on4(lambda v: lax.ppermute(v, axis_name='i', perm=[(0, 1), (1, 0), (2, 3)]))
shuffled = on4(lambda v: lax.pshuffle(v, 'i', [1, 2, 3, 0]))
swapped = on4(lambda v: lax.pswapaxes(v * jnp.arange(1.0, 5.0), 'i', 0))
swapped_groups = on4(lambda v: lax.pswapaxes(jnp.stack([v, 10 * v]), 'i', 0,
                                             axis_index_groups=[[1, 0], [3, 2]]))
gathered = on4(lambda v: lax.all_gather(jnp.stack([v, -v]), 'i', axis=-1, tiled=True))
scattered = on4(lambda v: lax.psum_scatter(v * jnp.ones((2, 4)), 'i', scatter_dimension=1))
exchanged = on4(lambda v: lax.all_to_all(v * jnp.ones((4, 2)), 'i', split_axis=0,
                                         concat_axis=1, tiled=True))
cast = on4(lambda v: lax.pcast(v, 'i', to='varying'))
sizes = on4(lambda v: v * lax.axis_size(axis_name='i') + lax.axis_index(axis_name='i'))
print(by_keyword, permuted, shuffled)
print(swapped)
print(swapped_groups)
print(gathered, scattered, exchanged, cast, sizes)

refused("psum extra positional", lambda: on4(lambda v: lax.psum(v, 'i', [[0, 1], [2, 3]])), True)
refused("psum unknown keyword", lambda: on4(lambda v: lax.psum(v, 'i', groups=None)), True)
refused("psum twice", lambda: on4(lambda v: lax.psum(v, 'i', axis_name='i')), True)
refused("psum missing", lambda: lax.psum(x), True)
refused("pmax unknown keyword", lambda: on4(lambda v: lax.pmax(v, 'i', tiled=True)), True)
refused("all_gather positional axis", lambda: on4(lambda v: lax.all_gather(v, 'i', 0)), True)
refused("all_gather unknown keyword",
        lambda: on4(lambda v: lax.all_gather(v, 'i', scatter_dimension=0)), True)
refused("psum_scatter unknown keyword",
        lambda: on4(lambda v: lax.psum_scatter(v[None] * jnp.ones(4), 'i', axis=0)), True)
refused("all_to_all missing", lambda: on4(lambda v: lax.all_to_all(v, 'i', 0)), True)
refused("all_to_all unknown keyword",
        lambda: on4(lambda v: lax.all_to_all(v[None], 'i', 0, 0, axis=0)), True)
refused("ppermute unknown keyword",
        lambda: on4(lambda v: lax.ppermute(v, 'i', [(0, 1)], tiled=True)), True)
refused("axis_index extra", lambda: on4(lambda v: lax.axis_index('i', 1)), True)
refused("pcast without to", lambda: on4(lambda v: lax.pcast(v, 'i')), True)
refused("pcast bad to", lambda: on4(lambda v: lax.pcast(v, 'i', to='sideways')))
refused("all_gather bad to", lambda: on4(lambda v: lax.all_gather(v, 'i', to='sideways')))
refused("pshuffle not a permutation", lambda: on4(lambda v: lax.pshuffle(v, 'i', [0, 0, 1, 2])),
        True)

result = [by_keyword, permuted, shuffled, swapped, swapped_groups, gathered, scattered,
          exchanged, cast, sizes]
