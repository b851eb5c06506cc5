import jax, jax.numpy as jnp
from jax import lax
def f(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * x, 1.0)
print(jax.jvp(lambda x: jax.jit(f)(x, 3), (2.0,), (1.0,))[1])
g = jax.grad(jax.jit(f))(2.0, 3)
