import numpy as np
import jax
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
rows = jax.device_put(np.ones((8, 4)), NamedSharding(mesh, P("x")))
f = jax.jit(lambda a: a * 2, in_shardings=NamedSharding(mesh, P(None, "y")))
result = f(rows)
