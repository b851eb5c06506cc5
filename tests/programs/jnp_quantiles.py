# quantile/percentile/median and their NaN-ignoring forms: axes, keepdims,
# methods, vector q, NaN lines; under jit, grad and vmap.
import jax, jax.numpy as jnp

d = jnp.array([[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]])
print(jnp.median(d), jnp.median(d, axis=0), jnp.median(d, axis=1, keepdims=True))
print(jnp.quantile(d, 0.3), jnp.quantile(d, jnp.array([0.0, 0.25, 1.0]), axis=1))
print(jnp.percentile(d, 40, axis=0), jnp.percentile(d, jnp.array([10, 90]), keepdims=True).shape)
for m in ["linear", "lower", "higher", "nearest", "midpoint"]:
    print(m, jnp.quantile(d, 0.6, axis=1, method=m), jnp.percentile(d, 35, method=m))
c = jnp.arange(24.0).reshape(2, 3, 4)
print(jnp.median(c, axis=(0, 2)), jnp.quantile(c, 0.7, axis=(1, 2), keepdims=True))
n = jnp.array([[1.0, jnp.nan, 3.0], [jnp.nan, jnp.nan, jnp.nan], [2.0, 8.0, 4.0]])
print(jnp.median(n, axis=1), jnp.nanmedian(n, axis=1), jnp.nanquantile(n, 0.25, axis=1))
print(jnp.nanpercentile(n, jnp.array([50, 100]), axis=1), jnp.nanmedian(n))
print(jnp.median(jnp.arange(5)), jnp.quantile(jnp.arange(4), 0.5))
print(jax.jit(lambda a: jnp.median(a, axis=1))(d))
print(jax.grad(lambda a: jnp.median(a))(d))
print(jax.grad(lambda a: jnp.quantile(a, 0.3, axis=1).sum())(d))
print(jax.vmap(lambda r: jnp.percentile(r, 75))(d))
try:
    jnp.quantile(d, 0.5, method="cubic")
except ValueError as e:
    print("ValueError:", e)
result = jnp.quantile(d, jnp.array([0.1, 0.5]), axis=0)
