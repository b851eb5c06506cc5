import numpy as np
import jax
from jax.sharding import PartitionSpec as P

x = jax.device_put(np.arange(8.0), P("x"))
