import numpy as np
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("x", "y"))
x = jax.device_put(np.ones((8, 4)), NamedSharding(mesh, P("x")))
result = jax.jit(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, P("y"))))(x)
