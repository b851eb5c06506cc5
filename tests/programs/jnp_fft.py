import jax
import jax.numpy as jnp
import numpy as np

# Complex transforms of many lengths: one pass per radix (2, 3, 4, 5, 7, 8,
# 11, 13) and several passes (6, 12, 16, 24, 30, 64).
def signal(n):
    t = jnp.arange(n, dtype=jnp.float32)
    return jnp.sin(0.7 * t) + 0.25 * t + 1j * jnp.cos(1.3 * t)

for n in [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 16, 24, 30, 64]:
    x = signal(n)
    f = jnp.fft.fft(x)
    b = jnp.fft.ifft(f)
    print(n, f[: min(n, 6)], b[: min(n, 3)])

x = jnp.array([[1.5, -2.0, 4.25, 7.0, 0.5], [5.0, 3.0, -1.0, 9.0, 2.0]])
print(jnp.fft.fft(x))
print(jnp.fft.fft(x, n=3))
print(jnp.fft.fft(x, n=8, axis=0))
print(jnp.fft.ifft(x, norm="ortho"))
print(jnp.fft.fft(x, norm="forward"))
# The real transforms on values and lengths (2 and 4) where every step is
# exact.
r = jnp.array([[1.0, -2.0, 4.0, 7.0], [5.0, 3.0, -1.0, 9.0]])
print(jnp.fft.rfft(r))
print(jnp.fft.rfft(r, n=2, norm="forward"))
print(jnp.fft.irfft(jnp.fft.rfft(r), n=4))
print(jnp.fft.irfft(r[:, :3]))
print(jnp.fft.irfft(r, n=4, axis=0))
print(jnp.fft.hfft(r[:, :3] + 1j * r[:, 1:]))
print(jnp.fft.ihfft(r))
print(jnp.fft.rfft2(r), jnp.fft.irfft2(r[:, :3]))
print(jnp.fft.rfftn(r.reshape(2, 2, 2)), jnp.fft.irfftn(r.reshape(2, 2, 2) + 2j))

y = jnp.arange(24.0).reshape(2, 3, 4) ** 1.5
print(jnp.fft.fft2(y))
print(jnp.fft.ifft2(y, s=[4, 2]))
print(jnp.fft.fftn(y))
print(jnp.fft.ifftn(y, axes=[0, 2]))
print(jnp.fft.fftn(y, axes=(2, 0)))

print(jnp.fft.fftfreq(8), jnp.fft.fftfreq(7, d=0.1), jnp.fft.rfftfreq(9, 2.0))
print(jnp.fft.fftshift(jnp.arange(10)), jnp.fft.ifftshift(jnp.arange(9)))
print(jnp.fft.fftshift(jnp.arange(12).reshape(3, 4), axes=1))

z = jax.lax.fft(x.astype(jnp.complex64), jax.lax.FftType.FFT, (5,))
print(z.dtype, z.shape, jax.lax.fft(x, "rfft", (2, 5)).shape)
print(jax.jit(jnp.fft.fft2)(y).dtype)
print(jax.make_jaxpr(jnp.fft.rfft)(x))
print(jax.make_jaxpr(lambda v: jax.lax.fft(v, "irfft", (2, 8)))(x.astype(jnp.complex64)))

for bad in [
    lambda: jnp.fft.fft(x, n=0),
    lambda: jnp.fft.fft(x, axis=(0, 1)),
    lambda: jnp.fft.fftn(x, s=[2], axes=[0, 1]),
    lambda: jnp.fft.fftn(x, axes=[1, 1]),
    lambda: jnp.fft.fft2(y, axes=(0,)),
    lambda: jnp.fft.fft(x, norm="sideways"),
    lambda: jax.lax.fft(x.astype(jnp.complex64), "rfft", (5,)),
    lambda: jax.lax.fft(x, "fft", (4,)),
    lambda: jnp.fft.fftfreq([3]),
]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)

result = jnp.fft.fft(x).imag
