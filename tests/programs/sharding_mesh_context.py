# Meshes, axis types and the context mesh.
import numpy as np
import jax
from jax.sharding import Mesh, AxisType

grid = jax.make_mesh((2, 4), ("rows", "cols"))
print(grid)
print(repr(grid))
print(grid.axis_types, grid.axis_names, grid.axis_sizes, grid.size)
print(grid.device_ids)
print(grid.devices)
print(repr(grid.devices))
print(grid.axis_types[0] == AxisType.Explicit, str(AxisType.Manual), repr(AxisType.Auto))
print(list(AxisType))

line = jax.make_mesh((8,), ("d",), axis_types=(AxisType.Auto,))
print(line, line.axis_types)
print(line.devices)

legacy = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"))
print(legacy, legacy.axis_types)
mixed = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"),
             axis_types=(AxisType.Explicit, AxisType.Auto))
print(mixed)
print(str(jax.devices()[3]), repr(jax.devices()[3]))

print(jax.sharding.get_abstract_mesh())
print(repr(jax.sharding.get_mesh()))
with jax.set_mesh(grid) as inside:
    print(inside)
    print(jax.sharding.get_abstract_mesh())
    print(jax.sharding.get_mesh())
    with jax.set_mesh(legacy):
        print(jax.sharding.get_abstract_mesh())
    print(jax.sharding.get_abstract_mesh().axis_names)
print(jax.sharding.get_abstract_mesh())

jax.set_mesh(line)
print(jax.sharding.get_abstract_mesh())
print(jax.P is jax.sharding.PartitionSpec or jax.P("d") == jax.sharding.PartitionSpec("d"))
print(jax.NamedSharding(line, jax.P("d")))
spec = jax.P("d", None)
print(isinstance(spec, jax.P), isinstance(("d",), jax.sharding.PartitionSpec), jax.P)
print(jax.P.UNCONSTRAINED, jax.P(), jax.P(None), jax.P(("d",)), spec == jax.P("d", None))

try:
    jax.make_mesh((16,), ("d",))
except ValueError as e:
    print("ValueError:", e)
result = [grid.axis_sizes, line.size]
print(grid.shape, grid.shape["cols"], len(grid.shape), list(grid.shape), dict(grid.shape))
print(grid.shape == {"rows": 2, "cols": 4}, list(grid.shape.items()), "rows" in grid.shape)
