# jaxprs show dtype promotion as JAX does: an operand of another dtype is
# converted by an equation (traced) or is a literal of the right type.
import jax, jax.numpy as jnp
from jax import lax
def func8(arg1, arg2):
  return lax.cond(arg1 >= 0., lambda xtrue: xtrue[0], lambda xfalse: jnp.array([1.0]) + xfalse[1], arg2)
print(jax.make_jaxpr(lambda x, y: x + y)(jnp.arange(3), 2.0))
print(jax.make_jaxpr(lambda x: x + 1)(jnp.ones(3)))
print(jax.make_jaxpr(lambda x, y: x * y)(jnp.arange(3), jnp.ones(3)))
print(jax.make_jaxpr(lambda x, y: x < y)(jnp.arange(3), jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jnp.maximum(x, 0))(jnp.arange(3.0)))
print(jax.make_jaxpr(lambda x: x * True)(jnp.arange(3)))
print(jax.grad(lambda x: (jnp.arange(3) * x).sum())(2.0))
