# convolve2d and correlate2d in each mode, with either operand the larger;
# detrend's linear and constant trends, along an axis and with breakpoints;
# the spectral estimators JAX has and shardlab does not model.
import jax
import jax.numpy as jnp
from jax.scipy import signal

x = jnp.array([[2, 0, 1, 3], [1, 4, 0, 2], [0, 1, 1, 5]])
k = jnp.array([[1, 2], [-1, 0]])
sq = jnp.array([[1.0, 2.0], [3.0, 4.0]])
for mode in ['full', 'same', 'valid']:
    print(mode, 'conv', signal.convolve2d(x, k, mode=mode))
    print(mode, 'corr', signal.correlate2d(x, k, mode=mode))
    print(mode, 'swap', signal.correlate2d(k, x, mode=mode))
    print(mode, 'eq', signal.correlate2d(sq, sq.T, mode=mode))
print(signal.convolve2d(x, k).dtype, signal.correlate2d(sq, k, boundary='fill', fillvalue=0).dtype)
print(jax.jit(signal.correlate2d)(sq, sq))
for f in [lambda: signal.convolve2d(x, k, boundary='wrap'),
          lambda: signal.correlate2d(x, k, fillvalue=1)]:
    try:
        f()
    except NotImplementedError as e:
        print('NotImplementedError', e)
try:
    signal.convolve2d(x[0], k[0])
except ValueError as e:
    print('ValueError', e)

data = jnp.array([1., 4., 8., 8., 9.])
d = signal.detrend(data)
with jnp.printoptions(precision=3, suppress=True):
    print(jnp.abs(jnp.round(d, 3)), jnp.round(data - d, 3))
    print(signal.detrend(data, type='constant'))
    m = jnp.array([[1., 2., 4., 7.], [3., 1., 0., 2.], [5., 5., 6., 6.]])
    print(jnp.abs(jnp.round(signal.detrend(m, axis=0), 3)))
    print(jnp.abs(jnp.round(signal.detrend(m), 3)))
    print(jnp.abs(jnp.round(signal.detrend(m, bp=2), 3)))
    print(jnp.abs(jnp.round(signal.detrend(jnp.arange(6), bp=[1, 3]), 3)))
    print(signal.detrend(jnp.arange(4), type='constant'))
try:
    signal.detrend(data, type='quadratic')
except ValueError as e:
    print('ValueError', e)
result = signal.detrend(data, type='constant')
