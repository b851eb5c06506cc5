# PartitionSpec with unreduced and reduced mesh axes: construction, repr,
# attributes, JAX's checks, and the types of arrays placed with them.
import jax
import jax.numpy as jnp
import numpy as np

mesh = jax.make_mesh((2, 2), ('a', 'b'), axis_types=(jax.sharding.AxisType.Explicit,) * 2)

specs = [
    jax.P('a', None, unreduced={'b'}),
    jax.P('a', unreduced={'b'}),
    jax.P(unreduced={'a'}),
    jax.P(None, reduced={'a'}),
    jax.P(reduced=frozenset({'b'})),
    jax.P('a', unreduced={'b'}, reduced=set()),
    jax.P(None, None, unreduced={'a'}, reduced={'b'}),
]
for s in specs:
    print(repr(s), str(s), sorted(s.unreduced), sorted(s.reduced), s.partitions)
print(jax.P('a', unreduced={'b'}) == jax.P('a', unreduced={'b'}))
print(jax.P('a', unreduced={'b'}) == jax.P('a'))

for bad in [
    lambda: jax.P('a', unreduced={'a'}),
    lambda: jax.P(None, reduced={'a'}, unreduced={'a'}),
    lambda: jax.P(unreduced=['a']),
    lambda: jax.P(unreduced={None}),
    lambda: jax.P('a', unreduced={'b'})[0],
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0])

with jax.set_mesh(mesh):
    x = jax.device_put(np.arange(32.).reshape(8, 4), jax.P('a', 'b'))
    y = jax.device_put(x, jax.P('a', None, unreduced={'b'}))
    print(y.sharding)
    print(jax.typeof(y))
    for sh in y.addressable_shards:
        print(sh.device, sh.data.tolist())
    print(y)
    r = jax.reshard(y, jax.P('a', None))
    print(jax.typeof(r))
    print(r)
    w = jax.reshard(jnp.ones((4, 2)), jax.P(None, None, reduced={'b'}))
    print(jax.typeof(w))
    print(jax.typeof(w * 2.0), jax.typeof(jnp.sin(w)))
    result = r.sum()
