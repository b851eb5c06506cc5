# A jitted function defined in a class body binds the instance as a method
# does, and prints as JAX's PjitFunction.
from functools import partial
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, k):
        self.k = k

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.k


s = Scaler(3.0)
print(s.apply(jnp.arange(3.0)))
print(Scaler.apply(s, jnp.ones(2)))
f = jax.jit(lambda x: x + 1)
print(type(f).__name__, f.__name__, callable(f))
result = s.apply(jnp.arange(2.0))
