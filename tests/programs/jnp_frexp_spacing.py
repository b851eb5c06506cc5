# jnp.frexp (mantissa in [0.5, 1) and an int32 exponent; zero, infinities,
# NaN), jnp.spacing (the step away from zero, the smallest
# subnormal at zero), and jnp.moveaxis with sequences of axes.
import jax
import jax.numpy as jnp

x = jnp.array([8.0, -3.0, 0.75, 0.0, -0.0, 1e-30, jnp.inf, -jnp.inf, jnp.nan, 1.0])
m, e = jnp.frexp(x)
print(m, e, m.dtype, e.dtype)
print(jnp.ldexp(m, e)[:6])
print(jnp.frexp(jnp.array([1, 2, 3, 1024])))
print(jax.jit(jnp.frexp)(jnp.array([[5.0, 0.1], [-2.5, 3e38]])))
s = jnp.spacing(jnp.array([1.0, -1.0, 0.0, -0.0, 1000.0, 1e-30, 3]))
print(s, s.dtype)
print(jnp.spacing(jnp.array([1, 2, 1024])), jax.jit(jnp.spacing)(jnp.array([2.0, -0.5])))
try:
    jnp.frexp(jnp.array([1j]))
except TypeError as err:
    print('TypeError', err)
a = jnp.zeros((2, 3, 4, 5))
print(jnp.moveaxis(a, (0, 1), (-1, -2)).shape, jnp.moveaxis(a, [0, 3], [3, 0]).shape)
print(jnp.moveaxis(a, (1,), (3,)).shape, jnp.moveaxis(a, (2, 0, 1), (0, 1, 2)).shape)
b = jnp.arange(24).reshape(2, 3, 4)
print(jnp.moveaxis(b, (0, 2), (2, 0))[1], jnp.moveaxis(b, 0, -1).shape)
try:
    jnp.moveaxis(a, (0, 1), (2,))
except ValueError as err:
    print('ValueError', err)
result = jnp.frexp(jnp.array([6.0, 0.3]))[0]
