# jax.scipy.signal's N-dimensional convolution and correlation: the three
# modes, the direct and FFT methods, integer operands promoted to float,
# a larger second operand, complex operands and results under jit.
import jax
import jax.numpy as jnp
from jax.scipy import signal

x = jnp.array([1, 2, 1])
y = jnp.array([1, 1, 3, 0])
for mode in ['full', 'same', 'valid']:
    c = signal.convolve(x, y, mode=mode)
    r = signal.correlate(x, y, mode=mode)
    print(mode, c, c.dtype, r, r.dtype)
    print(mode, signal.convolve(y, x, mode=mode), signal.correlate(y, x, mode=mode))
f = jnp.array([2.0, -1.0, 0.5, 3.0, 1.0])
k = jnp.array([1.0, 2.0])
print(jnp.round(signal.convolve(f, k, method='fft'), 4))
print(jnp.round(signal.correlate(f, k, mode='same', method='fft'), 4))
print(signal.convolve(f, k, method='direct'), signal.convolve(f, jnp.array([2])))
a = jnp.arange(12.0).reshape(3, 4)
b = jnp.array([[1.0, -1.0], [2.0, 0.0]])
print(signal.convolve(a, b))
print(signal.correlate(a, b, mode='valid'))
print(signal.convolve(a, b, mode='same'))
print(jnp.round(signal.fftconvolve(a, b), 3))
print(jnp.round(signal.fftconvolve(a, b, mode='same'), 3))
print(jnp.round(signal.fftconvolve(b, a, mode='valid'), 3))
print(jnp.round(signal.fftconvolve(a, a[:, :2], axes=1), 3))
print(jnp.round(signal.fftconvolve(a[0], jnp.array([2.0])), 3))
z = jnp.array([1 + 1j, 2 - 1j, 0.5j])
w = jnp.array([1j, 2.0])
print(signal.convolve(z, w), signal.correlate(z, w))
print(jnp.round(signal.fftconvolve(z, w), 3))
jc = jax.jit(lambda p, q: signal.correlate(p, q, mode='same'))
print(jc(f, jnp.array([1.0, 0.0, -1.0])))
v = jnp.arange(8.0).reshape(2, 2, 2)
print(signal.convolve(v, jnp.ones((1, 2, 1))).shape, signal.fftconvolve(v, v).shape)
for bad in [lambda: signal.convolve(x, y, mode='bogus'),
            lambda: signal.convolve(x, y, method='slow'),
            lambda: signal.convolve(a, x),
            lambda: signal.convolve(jnp.ones((2, 3)), jnp.ones((3, 2))),
            lambda: signal.fftconvolve(jnp.ones((2, 3)), jnp.ones((3, 2)), mode='valid'),
            lambda: signal.fftconvolve(a, b, axes=0)]:
    try:
        bad()
    except ValueError as e:
        print('ValueError', e)
result = signal.convolve(f, k, mode='same')
