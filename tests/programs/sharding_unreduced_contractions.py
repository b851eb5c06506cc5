# Contractions whose result stays unreduced, what each device holds, the
# arithmetic JAX allows on such values and the all-reduce that ends it.
import jax
import jax.numpy as jnp
import numpy as np

mesh = jax.make_mesh((2,), ('k',), axis_types=(jax.sharding.AxisType.Explicit,))

with jax.set_mesh(mesh):
    p = jax.device_put(np.arange(12.).reshape(3, 4) - 5, jax.P(None, 'k'))
    q = jax.device_put(np.arange(8.).reshape(4, 2) / 4, jax.P('k', None))
    print(jax.typeof(p), jax.typeof(q))

    u = jnp.einsum('ij,jk->ik', p, q, out_sharding=jax.P(None, None, unreduced={'k'}))
    print(jax.typeof(u))
    for sh in u.addressable_shards:
        print(sh.device.id, sh.data.tolist())

    v = jnp.matmul(3. * p, q, out_sharding=jax.P(None, None, unreduced={'k'}))
    t = jax.lax.dot_general(p, q, (([1], [0]), ([], [])),
                            out_sharding=jax.P(None, None, unreduced={'k'}))
    s = u + v
    print(jax.typeof(s), jax.typeof(t))
    for sh in s.addressable_shards:
        print(sh.device.id, sh.data.tolist())
    print(jax.typeof(s.T))
    print(jax.reshard(s, jax.P(None, None)))
    print(jax.reshard(t, jax.P(None, None)))

    for bad in [lambda: jnp.cos(u), lambda: jnp.exp(u), lambda: u - v, lambda: u * v,
                lambda: u + jnp.ones((3, 2)), lambda: u * 2.0, lambda: u @ jnp.ones((2, 2))]:
        try:
            bad()
            print('no error')
        except Exception as e:
            print(type(e).__name__, str(e).split('\n')[0])

    result = jax.reshard(u, jax.P(None, None))
