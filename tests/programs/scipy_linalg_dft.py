# jax.scipy.linalg.dft with its scalings, and convolution_matrix in its
# three modes, checked against jnp.convolve.
import jax.numpy as jnp
import jax.scipy as jsp

print(jsp.linalg.dft(4))
d3 = jsp.linalg.dft(3, scale="sqrtn")
print(d3.real, d3.imag)
d5 = jsp.linalg.dft(5, scale="n") @ jnp.arange(5.0)
print(d5.real, d5.imag)
k = jnp.array([1.0, -2.0, 0.5])
x = jnp.array([3.0, 1.0, 4.0, 1.0, 5.0])
for mode in ["full", "same", "valid"]:
    c = jsp.linalg.convolution_matrix(k, 5, mode)
    print(mode, c.shape)
    print(c)
    print(c @ x, jnp.convolve(k, x, mode=mode))
print(jsp.linalg.convolution_matrix(jnp.array([1, 2]), 3))
result = jsp.linalg.convolution_matrix(k, 4, "same")
