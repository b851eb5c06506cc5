import jax.numpy as jnp
import numpy as np

x = jnp.array([1.0, 2.0, 3.0])
print("before")
np.testing.assert_allclose(x * 2, [2.0, 4.0, 6.5], rtol=1e-6)
print("not reached")
