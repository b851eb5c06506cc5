# jax.scipy.fft's type-2 DCT and its inverse: lengths given by n (padding
# and cropping), axes, the orthonormal scaling, integer and complex inputs,
# the N-dimensional forms over two and three axes, and round trips.
import jax
import jax.numpy as jnp
from jax.scipy import fft

x = jnp.array([4.0, 1.0, -2.0, 3.0, 0.5])
r = lambda v: jnp.round(v, 3) + 0.0
print(r(fft.dct(x)), fft.dct(x).dtype)
print(r(fft.dct(x, norm='ortho')), r(fft.dct(x, n=3)), r(fft.dct(x, n=7)))
print(r(fft.idct(fft.dct(x))), r(fft.idct(fft.dct(x, norm='ortho'), norm='ortho')))
print(r(fft.idct(x)), r(fft.idct(x, n=4)), r(fft.idct(x, norm='ortho')))
print(r(fft.dct(jnp.array([1, 2, 3, 4]))), fft.dct(jnp.array([1, 2, 3, 4])).dtype)
print(fft.idct(jnp.array([1, 2, 3])).dtype)
m = jnp.array([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0], [0.5, 4.0, 1.0], [2.0, 2.0, -3.0]])
print(r(fft.dct(m, axis=0)))
print(r(fft.dct(m, norm='ortho')))
print(r(fft.dctn(m)))
print(r(fft.dctn(m, norm='ortho')))
print(r(fft.dctn(m, s=(2, 4))))
print(r(fft.dctn(m, axes=[1])), r(fft.dctn(m, s=[2])))
print(r(fft.idctn(fft.dctn(m))))
print(r(fft.idctn(m, norm='ortho', axes=(0, 1))))
c = jnp.arange(24.0).reshape(2, 3, 4) % 5
print(r(fft.dctn(c)))
print(r(fft.idctn(fft.dctn(c, norm='ortho'), norm='ortho')))
z = jnp.array([1 + 2j, 3 - 1j, 0.5j])
print(r(fft.dct(z)), r(fft.idct(z)), fft.dct(z).dtype)
print(r(jax.jit(fft.dct)(x)), r(jax.jit(lambda v: fft.dctn(v, norm='ortho'))(m)))
print(jax.jit(lambda v: v / jnp.complex64(2 + 1j))(z), jax.jit(lambda v: v / jnp.complex64(4))(z))
try:
    fft.dct(x, type=3)
except NotImplementedError as e:
    print('NotImplementedError', e)
try:
    fft.dct(x, norm='forward')
except ValueError as e:
    print('ValueError', e)
result = fft.dctn(m)
