# A math domain error ends the program as in CPython: ValueError at its line.
import math

import jax.numpy as jnp

variance = float(jnp.var(jnp.arange(4.0))) - 2.0
print("variance", variance)
std = math.sqrt(variance)
print("not reached", std)
