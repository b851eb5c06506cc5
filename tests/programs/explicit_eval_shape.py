# eval_shape under a mesh whose axes are all explicit: the structs carry the
# shardings of the outputs' types (over the abstract mesh), structs may be
# given a sharding, and with_sharding_constraint checks a layout there
# instead of changing it.
import jax, jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit, AxisType.Explicit))
with jax.set_mesh(mesh):
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), P('data', None))
    key = jax.random.key(0)
    outs = jax.eval_shape(
        lambda a: (a * 2, a.sum(0), jax.random.normal(key, (4, 8), out_sharding=P(None, 'model'))), x)
    for o in outs:
        print(o)
        print(o.sharding.spec, o.shape, o.dtype)
    s = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(mesh, P('data', None)))
    print(s)
    print(s.sharding)
    r = jax.eval_shape(lambda a: a.T, s)
    print(r, r.sharding.spec)
    s2 = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=P('data'))
    print(s2, s2.sharding.spec)
    print(jax.eval_shape(lambda: jnp.ones(3)))
    print(jax.jit(lambda a: a + 1).eval_shape(x).sharding.spec)
    # A pytree of stacked layers made inside eval_shape.
    params = jax.eval_shape(lambda: {
        'w': jax.random.normal(key, (2, 8, 8), out_sharding=P(None, None, 'model')),
        'b': jnp.zeros((2, 8)),
    })
    print(params['w'].sharding.spec, params['b'].sharding.spec)

    # with_sharding_constraint acts as an assertion here.
    y = jax.lax.with_sharding_constraint(x, P('data', None))
    print(y is x, jax.typeof(y))
    print(jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, P('data')))(x).sharding.spec)
    try:
        jax.lax.with_sharding_constraint(x, P(None, 'model'))
    except AssertionError as e:
        print('AssertionError', e)
    try:
        jax.jit(lambda a: jax.lax.with_sharding_constraint(a, P('model')))(x)
    except AssertionError as e:
        print('AssertionError', e)

    # Shardings compared by layout, not by spelling.
    a = NamedSharding(mesh, P('data'))
    print(a.is_equivalent_to(NamedSharding(mesh, P('data', None)), ndim=2),
          a.is_equivalent_to(NamedSharding(mesh, P(None, 'data')), ndim=2),
          x.sharding.is_equivalent_to(a, ndim=2))

# Over auto axes, and without a mesh, the structs carry no sharding.
auto = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
z = jax.device_put(jnp.ones((8, 4)), NamedSharding(auto, P('data', None)))
o = jax.eval_shape(lambda a: a * 2, z)
print(o, o.sharding)
print(jax.eval_shape(lambda a: a * 2, jnp.ones(3)).sharding)
