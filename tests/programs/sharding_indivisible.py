import numpy as np
import jax
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

# JAX 0.10.2 has no uneven shardings: device_put refuses them, checking
# explicit axes (part of the type) before the others.
for kinds in [(AxisType.Explicit, AxisType.Auto), (AxisType.Explicit,) * 2]:
    grid = jax.make_mesh((4, 2), ("a", "b"), axis_types=kinds)
    for spec, shape in [(P("a"), (6,)), (P(("a", "b")), (12,)), (P("b", "a"), (4, 6))]:
        try:
            jax.device_put(np.zeros(shape), NamedSharding(grid, spec))
        except ValueError as e:
            print(str(e))
grid = jax.make_mesh((4, 2), ("a", "b"))
try:
    jax.jit(lambda u: jax.device_put(u, NamedSharding(grid, P(None, "b"))))(np.ones((4, 3)))
except ValueError as e:
    print(str(e))
result = jax.device_put(np.arange(8.0), NamedSharding(grid, P("a")))
