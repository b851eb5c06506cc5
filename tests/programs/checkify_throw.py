# An Error thrown at top level is checkify's JaxRuntimeError, raised at
# the line of the throw.
import jax.numpy as jnp
from jax.experimental import checkify


def f(x):
    checkify.check(x.sum() < 3, "sum too large: {}", x.sum())
    return x * 2


err, out = checkify.checkify(f)(jnp.arange(3.0))
print(out)
err.throw()
