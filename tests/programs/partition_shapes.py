# Structural operations on arrays split over a mesh, eagerly and under jit:
# the values, and where the results live.
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Auto))
x = jax.device_put(jnp.arange(64.0).reshape(8, 8) * 0.5, NamedSharding(mesh, P('x', 'y')))
b = jax.device_put(jnp.arange(16.0).reshape(8, 2) - 3, NamedSharding(mesh, P('x')))

flat = x.reshape(64)
print(flat[::9], flat.sharding.spec)
cube = x.reshape(4, 2, 8)
print(cube.sum(axis=(1, 2)), cube.sharding.spec)
print(x[2:6, 1], x[:, ::3].sum(axis=0))
print(jnp.flip(x, axis=0)[0], jnp.argmax(x, axis=1), jnp.argmin(b, axis=0))
print(jnp.concatenate([x, x + 1], axis=1).sum(axis=1))
print(jnp.pad(b, ((1, 1), (0, 0)))[:, 1])
print(x.T[3], x.T.sharding.spec)
print(jnp.take(x, jnp.array([7, 0, 3]), axis=0)[:, 2])
print(jnp.prod(b[:3] + 4, axis=0), jnp.any(b > 10, axis=0), jnp.all(b > -4))


@jax.jit
def mixed(x, b):
    y = x.reshape(8, 4, 2).sum(axis=2)
    z = jnp.concatenate([y, b], axis=1)
    return z.sum(axis=1), z.max(), jnp.broadcast_to(b[:, :1], (8, 3))


s, m, bc = mixed(x, b)
print(s, m, bc[5])
print(s.sharding.spec, bc.sharding.spec)
result = [flat, cube.sum(axis=(1, 2)), s, m, bc]
