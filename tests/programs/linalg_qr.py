# Householder QR as JAX computes it: jnp.linalg.qr in its four modes on
# tall, wide and square matrices, real and complex, batched; the raw
# reflectors and lax.linalg.householder_product; jax.scipy.linalg.qr's
# modes; and the derivatives of the thin factors in both modes.
import jax
import jax.numpy as jnp
import jax.scipy as jsp

tall = jnp.array([[2.0, -1.0, 0.5], [4.0, 1.5, -2.0], [-1.0, 3.0, 2.5], [0.5, -2.0, 1.0]])
wide = jnp.array([[1.0, 2.0, 3.0, 4.0], [5.0, 4.0, 2.0, 1.0], [6.0, 3.0, 1.0, 5.0]])
cm = jnp.array([[1.0 + 1.0j, 2.0, -0.5j], [0.5, -1.0 + 2.0j, 1.0], [3.0j, 1.0, 2.0 - 1.0j]])

q, r = jnp.linalg.qr(tall)
print(q)
print(r)
print(jnp.linalg.qr(wide))
print(jnp.linalg.qr(tall, mode="complete"))
print(jnp.linalg.qr(tall, mode="r"))
h, taus = jnp.linalg.qr(tall, mode="raw")
print(h)
print(taus)
print(jnp.linalg.qr(cm))
print(jnp.linalg.qr(jnp.stack([tall[:3], wide[:, :3]])))
print(jnp.linalg.qr(jnp.array([[1, 2], [3, 4]])))
packed, t = jnp.linalg.qr(wide, mode="raw")
print(packed, t)
print(jax.lax.linalg.householder_product(packed.T[:, :3], t))
print(jax.lax.linalg.householder_product(h.T, taus[:2]))
print(jax.lax.linalg.qr(tall, full_matrices=False))
print(jsp.linalg.qr(tall))
print(jsp.linalg.qr(tall, mode="economic"))
print(jsp.linalg.qr(wide, mode="r"))
print(jnp.linalg.qr(jnp.zeros((3, 2))))


def loss(x):
    q, r = jnp.linalg.qr(x)
    return jnp.sum(q * jnp.arange(3.0)) + jnp.sum(r**2 * 0.1)


print(jax.grad(loss)(tall))
print(jax.jvp(lambda x: jnp.linalg.qr(x), (tall,), (jnp.ones_like(tall),)))
print(jax.jit(jnp.linalg.qr)(tall[:3]))
print(jax.vmap(lambda x: jnp.linalg.qr(x)[1])(jnp.stack([tall, tall * 2.0])))
result = tuple(jnp.linalg.qr(tall))
