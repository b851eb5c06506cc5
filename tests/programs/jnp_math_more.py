# log2, log10, exp2, logaddexp(2), hypot, degree conversions, fmax/fmin,
# heaviside, fabs, positive, float_power, nan_to_num, isposinf/isneginf;
# Python scalars stay weakly typed; under jit, grad and vmap.
import jax, jax.numpy as jnp

z = jnp.array([0.5, 1.0, 8.0, 0.0, -jnp.inf, jnp.inf, jnp.nan])
print(jnp.log2(z), jnp.log10(z), jnp.exp2(jnp.array([-1.0, 0.0, 3.5, 10.0])))
print(jnp.logaddexp(z, 2.0), jnp.logaddexp2(jnp.array([1.0, 3.0]), jnp.array([1.0, 3.0])), jnp.logaddexp(-jnp.inf, -jnp.inf))
print(jnp.hypot(jnp.array([3.0, 0.0, -6.0, jnp.inf]), jnp.array([4.0, 0.0, 8.0, jnp.nan])))
print(jnp.deg2rad(jnp.array([90.0, 180.0])), jnp.radians(45), jnp.rad2deg(jnp.pi / 3), jnp.degrees(1))
print(jnp.fmax(z, 1.0), jnp.fmin(jnp.nan, z), jnp.fmax(jnp.array([1, 5]), jnp.array([3, 2])))
print(jnp.heaviside(jnp.array([-2.0, 0.0, 0.0, 3.0, jnp.nan]), jnp.array([0.5, 1.0, 0.2, 0.5, 0.5])))
print(jnp.fabs(jnp.array([-3, 2])), jnp.positive(jnp.array([-1.5])), jnp.float_power(jnp.array([2, 3]), 2))
print(jnp.nan_to_num(z), jnp.nan_to_num(z, nan=-1.0, posinf=100.0), jnp.nan_to_num(jnp.arange(3)))
print(jnp.isposinf(z), jnp.isneginf(z), jnp.isneginf(jnp.arange(2)))
print(repr(jnp.hypot(3.0, 4.0)), repr(jnp.exp2(3)), repr(jnp.log2(4.0)), repr(jnp.deg2rad(90.0)))
print(jax.jit(jnp.logaddexp)(jnp.arange(3.0), 1.0), jax.jit(jnp.hypot)(jnp.arange(3.0), 2.0))
print(jax.grad(lambda v: jnp.log2(v).sum())(jnp.array([1.0, 2.0, 4.0])))
print(jax.grad(lambda v: jnp.hypot(v, 4.0).sum())(jnp.array([3.0, 0.5])))
print(jax.vmap(jnp.fmax)(jnp.array([1.0, jnp.nan]), jnp.array([jnp.nan, 2.0])))
result = jnp.logaddexp(jnp.arange(4.0), jnp.ones(4))
