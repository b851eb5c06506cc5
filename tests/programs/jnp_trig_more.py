import jax
import jax.numpy as jnp
from jax import lax

# The inverse trigonometric, hyperbolic, tangent and cube-root functions,
# compared to the last bit over a spread of arguments (outside the domain too).
grid = jnp.arange(-60, 61) * 0.125
unit = jnp.arange(-40, 40) * 0.025 + 0.0125
wide = jnp.array([0.0, -0.0, 1e-6, -2.5e-4, 0.7, 88.5, 89.0, 300.25, 1e4, 3e19, -1e30, 2e38])

for name in ["tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "cbrt"]:
    f = getattr(jnp, name)
    print(name, f(grid))
    print(name, f(unit))
    print(name, f(wide))

# lax's names are the same primitives, and the array API's aliases too.
print(lax.tan(0.5), lax.asin(0.5), lax.acos(0.5), lax.atan(0.5))
print(lax.sinh(2.0), lax.cosh(2.0), lax.asinh(2.0), lax.acosh(2.0), lax.cbrt(-8.0))
print(jnp.asin(0.25), jnp.acos(0.25), jnp.atan(0.25), jnp.asinh(0.25), jnp.acosh(1.25), jnp.atanh(0.25))

# Integers promote to float32; bfloat16 stays.
print(jnp.cbrt(jnp.array([27, -64, 1000])), jnp.tan(jnp.arange(4)))
print(jnp.sinh(jnp.array([0.5, 1.5], dtype=jnp.bfloat16)))

# Derivatives follow JAX's rules (those whose rounding does not depend on
# the processor's reciprocal square root or on multiply-add fusion).
for f in [jnp.sinh, jnp.cosh, jnp.cbrt]:
    print(jax.vmap(jax.grad(f))(unit[::3]))
print(jax.jit(lambda x: jnp.cosh(x) - jnp.sinh(x))(grid[::7]))
print(jax.make_jaxpr(lambda x: jnp.arcsin(jnp.tan(x)) + lax.cbrt(x))(1.0))

result = [jnp.arctan(grid), jnp.cbrt(wide)]
