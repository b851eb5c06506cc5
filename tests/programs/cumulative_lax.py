import jax, jax.numpy as jnp
from jax import lax
x = jnp.array([[0.5, -1.25, 3.0, 2.0], [1.5, 0.25, -2.0, 4.0]])
print(lax.cumsum(x, axis=1))
print(lax.cumsum(x, axis=0, reverse=True))
print(lax.cumprod(x, axis=1))
print(lax.cummax(x, axis=1), lax.cummin(x, axis=1, reverse=True))
print(lax.cumlogsumexp(x, axis=1))
print(lax.cumsum(jnp.arange(6, dtype=jnp.int32)), lax.cummax(jnp.array([3, 1, 4, 1, 5])))
long = (jnp.arange(3000, dtype=jnp.float32) * 0.1 + 0.37) ** 1.3
s = lax.cumsum(long)
print(s[:3], s[15:18], s[255:258], s[-3:])
print(lax.cumsum(long[:1001], reverse=True)[::97])
print(lax.cumprod(1.0 + 0.0001 * long[:700], reverse=True)[::61])
r = lax.cumsum(long, reverse=True)
print(r[:3], r[-3:])
m = jnp.sin(jnp.arange(600.0)).reshape(3, 200)
print(lax.cumsum(m, axis=1)[:, -1], lax.cumprod(1.0 + 0.001 * m, axis=1)[:, -1])
print(jax.make_jaxpr(lambda v: lax.cumsum(v, axis=1, reverse=True))(x))
g = jax.grad(lambda v: (lax.cumsum(v, axis=1) * jnp.arange(4.0)).sum())(x)
print(g)
print(jax.jvp(lambda v: lax.cumsum(v, axis=0), (x,), (jnp.ones_like(x),))[1])
print(jax.jit(lambda v: lax.cummax(v, axis=1))(x))
print(jax.vmap(lambda v: lax.cumsum(v, axis=0))(x))
try:
    lax.cumsum(x, axis=2)
except ValueError as e:
    print("ValueError", e)
result = [lax.cumsum(x, axis=1), g, s[::50]]
