import jax
import jax.numpy as jnp

x = jnp.linspace(-2.0, 2.0, 9)
# Constants and functions; the last true condition wins.
print(jnp.piecewise(x, [x < 0, x >= 0], [-1.0, lambda t: t**2]))
print(jnp.piecewise(x, [x < -1, x > 1], [lambda t: -t, lambda t: t, 0.5]))
print(jnp.piecewise(x, [x < 1, x < 0], [1, 2]))
# Integer input: results are cast to its dtype.
k = jnp.arange(-3, 4)
r = jnp.piecewise(k, [k < 0], [lambda t: t * 1.5, 7])
print(r, r.dtype)
# Extra arguments go to every function.
print(jnp.piecewise(x, [x > 0], [lambda t, s: t * s, lambda t, s: -s], 3.0))
# A scalar input.
print(jnp.piecewise(jnp.float32(0.5), [True, False], [1.0, 2.0, 3.0]))
try:
    jnp.piecewise(x, [x < 0], [1.0, 2.0, 3.0])
except ValueError as e:
    print("ValueError", e)
f = jax.jit(lambda t: jnp.piecewise(t, [t < 0, t > 1], [0.0, 1.0, lambda s: s]))
print(f(x))
g = jax.grad(lambda t: jnp.piecewise(t, [t < 0], [lambda s: s**2, lambda s: 3 * s]).sum())
print(g(x))
print(jax.vmap(lambda t: jnp.piecewise(t, [t > 0], [lambda s: s * 10, 0.0]))(x))



# Functions mapped along axes and over index grids.
m = jnp.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
print(jnp.apply_along_axis(jnp.sort, 1, m), jnp.apply_along_axis(lambda v: v.max() - v.min(), 0, m))
print(jnp.apply_along_axis(lambda v, k: v[:k], -1, m, 2))
print(jnp.apply_along_axis(lambda v: jnp.outer(v, v), 0, m).shape)
print(jnp.apply_over_axes(jnp.sum, m, [0, 1]), jnp.apply_over_axes(jnp.mean, jnp.ones((2, 3, 4)), (0, 2)).shape)
print(jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)), jnp.fromfunction(lambda i: i * i, (4,), dtype=jnp.int32))
print(jax.jit(lambda a: jnp.apply_along_axis(jnp.cumsum, 0, a))(m))
result = [jnp.piecewise(x, [x < 0, x >= 0], [-1.0, lambda t: t**2]), f(x), g(x), jnp.apply_along_axis(jnp.sort, 1, m)]
