# Asking jax.numpy's creation functions for a 64-bit dtype without x64
# gives the 32-bit array with JAX's UserWarning, once per calling line;
# Python's own types (dtype=float) ask for nothing explicit.
import warnings
import numpy as np
import jax.numpy as jnp

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("default")
    made = [
        jnp.zeros(3, dtype=np.float64),
        jnp.ones(2, np.int64),
        jnp.array([1, 2], dtype="float64"),
        jnp.asarray([1.5], dtype=np.float64),
        jnp.full(2, 7, dtype="int64"),
        jnp.zeros_like(jnp.ones(2), dtype="uint64"),
        jnp.zeros(3, dtype=float),
        jnp.array(np.zeros(2)),
    ]
    for _ in range(3):
        jnp.ones(1, dtype=np.float64)
print([x.dtype for x in made])
for w in caught:
    print(w.category.__name__, w.message)
print(len(caught))
