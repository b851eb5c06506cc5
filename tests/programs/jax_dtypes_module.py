import jax
import jax.numpy as jnp
import numpy as np
from jax import dtypes

# Canonical dtypes without x64: the 64-bit types are their 32-bit ones.
for d in [np.float64, np.int64, "float32", jnp.bfloat16, np.uint8, bool, float, int, np.complex128]:
    print(dtypes.canonicalize_dtype(d))
print(dtypes.bfloat16 == jnp.bfloat16, jnp.zeros(2, dtypes.bfloat16).dtype)
print(dtypes.finfo(jnp.float16).eps, dtypes.iinfo(jnp.int16).max)
print(dtypes.result_type(jnp.int8, 2.5), dtypes.issubdtype(jnp.float32, jnp.floating))

# A typed key's dtype derives from extended and prng_key; other dtypes
# do not.
key = jax.random.key(0)
print(key.dtype)
print(jnp.issubdtype(key.dtype, dtypes.extended), jnp.issubdtype(key.dtype, dtypes.prng_key))
print(dtypes.issubdtype(key.dtype, jnp.floating), jnp.issubdtype(jnp.float32, dtypes.extended))
print(jnp.issubdtype(jnp.int32, dtypes.prng_key), jnp.issubdtype(dtypes.prng_key, dtypes.extended))
print(dtypes.extended, dtypes.prng_key)
print(dtypes.canonicalize_dtype(key.dtype, allow_extended_dtype=True))
try:
    dtypes.canonicalize_dtype(key.dtype)
except ValueError as e:
    print("ValueError", e)

result = [str(dtypes.canonicalize_dtype(np.float64)), jnp.issubdtype(key.dtype, dtypes.extended)]
