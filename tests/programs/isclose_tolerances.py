# isclose and allclose take rtol, atol and equal_nan, by position or by name;
# an infinity is close only to itself and NaN only to NaN with equal_nan.
import jax.numpy as jnp
import numpy as np

inf, nan = jnp.inf, jnp.nan
a = jnp.array([1.0, inf, inf, 1.0, nan, 0.006, 100.0, -inf, 2.0])
b = jnp.array([1.0, inf, -inf, inf, nan, 0.0, 100.5, -inf, 2.00001])
print(jnp.isclose(a, b))
print(jnp.isclose(a, b, equal_nan=True))
print(jnp.isclose(a, b, atol=1e-2))
print(jnp.isclose(a, b, 0.01))
print(jnp.isclose(a, b, rtol=0.01, atol=0.01, equal_nan=True))
print(jnp.isclose(a, b, 0.0, 0.0))
print(jnp.allclose(a, b, atol=1e-2, equal_nan=True), jnp.allclose(a[:2], b[:2]))
print(jnp.allclose(a[5:7], b[5:7], 0.01, 0.01), jnp.allclose(a[5:7], b[5:7]))
print(bool(jnp.isclose(a[5], 0.0, atol=1e-2)))

h = np.array([0.5, np.inf, np.nan])
print(np.isclose(h, [0.51, np.inf, np.nan], atol=0.02), np.allclose(h[:2], [0.5, np.inf]))
print(np.allclose(h, [0.5, np.inf, np.nan], equal_nan=True))
result = jnp.isclose(a, b, 1e-3, 1e-3, True)
