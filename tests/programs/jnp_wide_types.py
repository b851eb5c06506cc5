# jnp's 64-bit types without x64: types of their own, unequal to the 32-bit
# ones and to 32-bit dtypes, equal to NumPy's type of the same name; arrays
# asked for them are 32-bit (JAX warns on stderr).
import warnings
import jax.numpy as jnp
import numpy as np

warnings.simplefilter('ignore')
print(repr(jnp.float64), repr(jnp.int64), repr(jnp.uint64), repr(jnp.complex128))
print(jnp.float64 == jnp.float32, jnp.int64 == jnp.int32, jnp.float64 == jnp.float64)
print(jnp.float64 == np.float64, np.float64 == jnp.float64, jnp.int64 == np.int64)
x = jnp.ones(3)
i = jnp.arange(3)
print(x.dtype == jnp.float64, x.dtype == jnp.float32, i.dtype == jnp.int64, i.dtype == jnp.int32)
print(jnp.float64.__name__, jnp.float64.dtype, np.dtype(jnp.float64), jnp.int64.dtype)
print(repr(jnp.float64(1.5)), repr(jnp.int64(7.9)), jnp.float64([1, 2]))
print(jnp.zeros(2, jnp.float64).dtype, jnp.array([1, 2], dtype=jnp.int64).dtype)
print(jnp.ones(2, dtype=jnp.complex128).dtype, jnp.arange(3, dtype=jnp.uint64).dtype)
print(jnp.issubdtype(jnp.float64, jnp.floating), jnp.issubdtype(jnp.int64, jnp.integer))
print(jnp.issubdtype(x.dtype, jnp.float64), jnp.issubdtype(jnp.float64, jnp.float64))
print(jnp.issubdtype(x.dtype, jnp.float32), jnp.issubdtype(i.dtype, jnp.int32))
print(jnp.issubdtype(np.float64, jnp.float32), jnp.issubdtype(jnp.float64, np.float64))
print({jnp.float64: 'wide'}.get(jnp.float64), x.astype(jnp.float64).dtype)
