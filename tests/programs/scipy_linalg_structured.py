# The structured matrices of jax.scipy.linalg: toeplitz (with and without
# its first row, complex), hankel, circulant, fiedler, companion, leslie,
# hilbert, helmert, hadamard and block_diag, with ints, floats and scalars.
import jax.numpy as jnp
import jax.scipy.linalg as jla

print(jla.toeplitz(jnp.array([1, 2, 3])))
print(jla.toeplitz(jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, -4.0, 5.0, 6.5])))
print(jla.toeplitz(jnp.array([1.0 + 2.0j, 3.0 + 1.0j, 4.0 - 1.0j])))
print(jla.toeplitz(jnp.array([7.0, 8.0]), jnp.array([0.5])))
print(jla.hankel(jnp.array([1, 2, 3])))
print(jla.hankel(jnp.array([1.0, 2.0, 3.0]), jnp.array([9.0, 4.0, 5.0, 6.0])))
print(jla.hankel(jnp.array([1.5, 2.5]), jnp.array([3, 4, 5])))
print(jla.circulant(jnp.array([1.0, 2.0, 3.0, 4.0])))
print(jla.circulant(jnp.array([5])))
print(jla.fiedler(jnp.array([1.0, 4.0, 12.0, 45.0])))
print(jla.fiedler(jnp.array([3, -1, 2])))
print(jla.companion(jnp.array([1.0, -10.0, 31.0, -30.0])))
print(jla.companion(jnp.array([2, 3, 5])))
print(jla.leslie(jnp.array([0.1, 2.0, 1.0, 0.1]), jnp.array([0.2, 0.8, 0.7])))
print(jla.leslie(jnp.array([1, 2]), jnp.array([3])))
print(jla.hilbert(4))
print(jla.helmert(4))
print(jla.helmert(3, full=True))
print(jla.hadamard(4))
print(jla.hadamard(2, dtype=jnp.float32))
print(jla.block_diag(jnp.array([[1, 2], [3, 4]]), jnp.array([[5.0]]), jnp.array([6, 7, 8])))
print(jla.block_diag(jnp.ones((2, 1)), 3.0, jnp.zeros((1, 2))))
print(jla.block_diag())
