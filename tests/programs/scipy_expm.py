# jax.scipy.linalg.expm: JAX's Padé approximants of orders 3, 5 and 7
# chosen by the 1-norm, scaling and squaring for larger norms, upper
# triangular inputs, complex matrices and batches.
import jax.numpy as jnp
import jax.scipy as jsp

print(jsp.linalg.expm(jnp.zeros((2, 2))))
print(jsp.linalg.expm(jnp.array([[0.1, 0.2], [-0.1, 0.05]])))
print(jsp.linalg.expm(jnp.array([[0.5, 0.3], [0.2, -0.4]])))
print(jsp.linalg.expm(jnp.array([[1.0, 2.0], [3.0, 4.0]])))
print(jsp.linalg.expm(jnp.array([[0.0, -3.0], [3.0, 0.0]])))
print(jsp.linalg.expm(jnp.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0], [0.0, 0.0, 0.5]]), upper_triangular=True))
print(jsp.linalg.expm(jnp.array([[0.0, 1.0j], [1.0j, 0.0]])))
print(jsp.linalg.expm(jnp.stack([jnp.eye(2), -jnp.eye(2) * 3.0])))
print(jsp.linalg.expm(jnp.array([[20.0, 1.0], [0.0, 20.0]]), max_squarings=2))
print(jsp.linalg.expm(jnp.array([[1, 0], [0, 2]])))
result = jsp.linalg.expm(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
