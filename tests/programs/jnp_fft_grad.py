import jax
import jax.numpy as jnp

x = jnp.array([[0.5, -1.0, 2.0, 3.5, 1.0, -0.25], [1.0, 2.0, 0.0, -3.0, 4.0, 0.5]])
c = x[:, :4] + 1j * x[:, 2:]

def loss_rfft(v):
    f = jnp.fft.rfft(v)
    return jnp.sum(f.real ** 2 + 3.0 * f.imag)

def loss_irfft(v):
    return jnp.sum(jnp.fft.irfft(v + 0.0j, n=6) * jnp.arange(6.0))

def loss_fft(v):
    f = jnp.fft.fft2(v.astype(jnp.complex64))
    return jnp.sum(f.real * 2.0 - f.imag)

def loss_c(v):
    return jnp.real(jnp.sum(jnp.fft.ifft(v) * jnp.arange(1.0, 5.0)))

print(jax.grad(loss_rfft)(x))
print(jax.grad(loss_fft)(x))
print(jax.grad(loss_irfft)(x[:, :4]))
print(jax.grad(loss_c, holomorphic=False)(c.real))
print(jax.jit(jax.grad(loss_rfft))(x))
t_out = jax.jvp(jnp.fft.fft, (c,), (jnp.ones_like(c),))
print(t_out[0], t_out[1])
_, vjp = jax.vjp(jnp.fft.rfft, x)
print(vjp(jnp.ones((2, 4), jnp.complex64) * (1 + 2j)))
_, vjp = jax.vjp(lambda v: jnp.fft.irfft(v, n=5), c[:, :3])
print(vjp(x[:, :5]))
print(jax.vmap(jnp.fft.fft)(c))
print(jax.vmap(lambda r: jnp.fft.rfft(r, n=4), in_axes=1)(x))
print(jax.make_jaxpr(jnp.fft.ifft2)(c))

result = jax.grad(loss_rfft)(x)
