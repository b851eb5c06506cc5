# jnp's NaN-ignoring reductions, with axis, keepdims, ddof, where= and
# initial=; all-NaN lines; under jit, grad and vmap.
import jax, jax.numpy as jnp

x = jnp.array([[1.0, jnp.nan, 3.0, 2.0], [4.0, 5.0, jnp.nan, jnp.nan], [jnp.nan] * 4])
print(jnp.nansum(x), jnp.nansum(x, axis=0), jnp.nansum(x, axis=1, keepdims=True))
print(jnp.nanprod(x, axis=1), jnp.nanmax(x, axis=1), jnp.nanmin(x, axis=0))
print(jnp.nanmean(x, axis=1), jnp.nanvar(x, axis=1), jnp.nanstd(x, axis=1, ddof=1))
print(jnp.nanargmax(x, axis=1), jnp.nanargmin(x, axis=1), jnp.nanargmax(x[:2]))
print(jnp.nancumsum(x[0]), jnp.nancumprod(x, axis=1))
m = jnp.array([[True, False, True, False]] * 3)
print(jnp.nansum(x, axis=1, where=m), jnp.nanmax(x, axis=1, initial=2.5))
print(jnp.nanmean(x, axis=0, where=m), jnp.nanmax(x, axis=1, where=m, initial=-1.0))
print(jnp.sum(jnp.arange(5.0), where=jnp.arange(5) > 2), jnp.max(jnp.arange(4), initial=9))
print(jnp.count_nonzero(jnp.array([[0, 1, 2], [0, 0, 3]]), axis=1), jnp.ptp(x[0, [0, 2, 3]]))
print(jnp.average(jnp.arange(6.0).reshape(2, 3), axis=1, weights=jnp.array([1.0, 2.0, 3.0])))
print(jnp.average(jnp.arange(4), returned=True))
print(jnp.nansum(jnp.arange(4)), jnp.nanmax(jnp.array([1, 7, 3])))
print(jax.jit(lambda a: jnp.nanmean(a, axis=1))(x))
print(jax.grad(lambda a: jnp.nansum(a * a))(x[0]))
print(jax.grad(lambda a: jnp.nanmax(a))(x[0]))
print(jax.vmap(jnp.nanvar)(x))
try:
    jnp.nanmax(x, where=m)
except ValueError as e:
    print("ValueError:", e)
result = jnp.nanstd(x, axis=0)
