import numpy as np
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("x", "y"))
a = jax.device_put(np.ones((8, 4)), NamedSharding(mesh, P("x", "y")))
b = jax.device_put(np.ones((4, 8)), NamedSharding(mesh, P("y", None)))
print(jax.typeof(a), jax.typeof(b))
c = a @ b
