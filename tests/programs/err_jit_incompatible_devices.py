import numpy as np
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("x", "y"))
rows = jax.device_put(np.ones((8, 4)), NamedSharding(mesh, P("x")))
single = jax.device_put(np.ones(4), jax.devices()[1])


def combine(params, extra):
    return params["w"] + extra[0]


result = jax.jit(combine)({"w": rows}, [single])
