import numpy as np
import jax
from jax.sharding import PartitionSpec as P

f = jax.jit(lambda a: a * 2, in_shardings=P("x"))
result = f(np.ones(4))
