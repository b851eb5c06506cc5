# lax.clamp: values, bounds of the operand's shape, derivatives, vmap, dtype and shape errors, and the clamp lax.switch puts on its index.
import jax, jax.numpy as jnp
from jax import lax
x = jnp.array([-2.0, 0.5, 3.0, 1.0])
print(lax.clamp(0.0, x, 1.0))
print(lax.clamp(jnp.zeros(4), x, jnp.full(4, 2.0)))
print(jax.make_jaxpr(lambda v: lax.clamp(0.0, v, 1.0))(x))
print(jax.grad(lambda v: lax.clamp(0.0, v, 1.0).sum())(x))
print(jax.jvp(lambda v: lax.clamp(0.0, v, 1.0), (x,), (jnp.ones(4),)))
print(jax.vmap(lambda v: lax.clamp(0.0, v, 1.0))(x))
print(jax.make_jaxpr(lambda i, v: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], v))(1, 1.0))
print(lax.switch(7, [jnp.sin, jnp.cos], 1.0), lax.switch(-3, [jnp.sin, jnp.cos], 1.0))
try:
    lax.clamp(jnp.int32(0), x, 1.0)
except TypeError as e:
    print("TypeError:", e)
try:
    lax.clamp(jnp.zeros(3), x, 1.0)
except TypeError as e:
    print("TypeError:", e)
print(lax.clamp(1, jnp.arange(5), 3))
print(jax.grad(lambda lo: lax.clamp(lo, x, jnp.full(4, 2.0)).sum())(jnp.full(4, 0.7)))
print(jax.grad(lambda hi: lax.clamp(jnp.zeros(4), x, hi).sum())(jnp.full(4, 0.7)))
result = lax.clamp(-1.0, x, 1.0)
