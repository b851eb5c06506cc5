# Operands on different meshes: over meshes with an explicit axis, JAX
# compares the abstract meshes (names, sizes, axis types) before anything
# runs; over auto axes only, it compares the devices, in mesh order.
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

devs = jax.devices()
A, E = AxisType.Auto, AxisType.Explicit
explicit4 = jax.make_mesh((4,), ('d',), axis_types=(E,))
explicit2 = jax.make_mesh((2,), ('d',), axis_types=(E,), devices=devs[:2])
explicit_hi = jax.make_mesh((4,), ('d',), axis_types=(E,), devices=devs[4:])
auto4 = jax.make_mesh((4,), ('d',), axis_types=(A,))
auto2 = jax.make_mesh((2,), ('d',), axis_types=(A,), devices=devs[:2])
auto_rev = jax.make_mesh((4,), ('d',), axis_types=(A,), devices=devs[:4][::-1])

def on(mesh, spec=P('d')):
    return jax.device_put(jnp.arange(4.0), NamedSharding(mesh, spec))

def add(a, b):
    return a + b

cases = [
    ('explicit 4 and 2', on(explicit4), on(explicit2)),
    ('explicit and auto', on(explicit4), on(auto4)),
    ('explicit, other devices', on(explicit_hi), on(explicit4)),
    ('auto 4 and 2', on(auto4), on(auto2)),
    ('auto reversed', on(auto4), on(auto_rev)),
    ('auto and replicated', on(auto4), on(auto4, P())),
]
for name, x, y in cases:
    for how, f in (('jit', jax.jit(add)), ('eager', add)):
        try:
            r = f(x, y)
            print(name, how, r, r.sharding)
        except ValueError as e:
            print(name, how, 'ValueError:', e)
