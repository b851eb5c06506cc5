# vmap over arrays laid out on explicit mesh axes, and draws with
# out_sharding inside its body: the body sees each operand without its
# mapped dimension, and results get that dimension back, split as the
# operands' were; initializers of jax.nn.initializers take out_sharding.
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Explicit,) * 2)
with jax.set_mesh(mesh):
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), P('data', 'model'))
    y = jax.vmap(lambda r: r * 2 + 1)(x)
    print(jax.typeof(y), y.sharding.spec)
    print(y)
    cols = jax.vmap(lambda c: c - c.sum(), in_axes=1, out_axes=1)(x)
    print(jax.typeof(cols), cols.sharding.spec)
    print(cols)
    sums = jax.vmap(jnp.sum)(x)
    print(jax.typeof(sums), sums)
    print(jax.typeof(jax.jit(jax.vmap(lambda r: jnp.sin(r)))(x)))
    # A row of x against a broadcast vector.
    v = jnp.arange(4.0)
    print(jax.typeof(jax.vmap(lambda r, w: r * w, in_axes=(0, None))(x, v)))

    keys = jax.random.split(jax.random.key(0), 2)
    w = jax.vmap(lambda k: jax.random.normal(k, (4, 8), out_sharding=P(None, 'model')))(keys)
    print(jax.typeof(w), w.sharding.spec)
    print(w)
    u = jax.jit(jax.vmap(lambda k: jax.random.uniform(k, (8,), out_sharding=P('model'))))(keys)
    print(jax.typeof(u), u)

    init = jax.nn.initializers.lecun_normal()
    k = init(jax.random.key(1), (8, 8), out_sharding=P('model', None))
    print(jax.typeof(k), k.sharding.spec)
    print(k)
    stacked = jax.vmap(lambda key: init(key, (8, 4), out_sharding=P('model', None)))(keys)
    print(jax.typeof(stacked), stacked.sharding.spec)
    z = jax.nn.initializers.zeros(jax.random.key(2), (4, 8), out_sharding=P(None, 'model'))
    print(jax.typeof(z), z.sharding.spec)
    b = jax.vmap(lambda _: jnp.zeros((8,), out_sharding=P(None)))(jnp.arange(3))
    print(jax.typeof(b), b)
    try:
        jax.nn.initializers.orthogonal()(jax.random.key(3), (4, 4), out_sharding=P('model'))
    except NotImplementedError as e:
        print('orthogonal:', type(e).__name__)
