# An abstract mesh: axes without devices; inside use_abstract_mesh the
# context mesh has its axes on the devices of the mesh it replaces.
import jax, jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P
am = jax.sharding.AbstractMesh((8,), ('A',), (AxisType.Explicit,))
print(am, am.axis_names, am.axis_sizes, am.axis_types, am.size)
print(jax.sharding.AbstractMesh((2, 4), ('a', 'b')))
mesh = jax.make_mesh((4, 2), ('X', 'Y'))
jax.set_mesh(mesh)
x = jax.device_put(jnp.arange(32.0).reshape(8, 4), P('X', 'Y'))
@jax.jit
def f(x):
    with jax.sharding.use_abstract_mesh(am):
        print(jax.sharding.get_abstract_mesh())
        y = jax.reshard(x, P('A', None))
        return y * 2
z = f(x)
print(jax.typeof(z), z.sharding)
print(z)
print(jax.sharding.get_abstract_mesh())
try:
    with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((4,), ('q',))):
        pass
except ValueError as e:
    print(e)
try:
    jax.sharding.use_abstract_mesh(mesh)
except ValueError as e:
    print(e)
result = z
