import numpy as np
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("x", "y"))
f = jax.jit(lambda a: (a, a + 1), out_shardings=(NamedSharding(mesh, P()),) * 3)
result = f(np.ones(4))
