# The symmetric eigendecomposition as JAX's CPU backend computes it
# (tridiagonal reduction, implicit QL/QR): jnp.linalg.eigh and eigvalsh,
# jax.scipy.linalg.eigh, lax.linalg.eigh; real and complex Hermitian
# matrices, repeated and negative eigenvalues, batches, non-symmetric input
# symmetrized, and derivatives in both modes.
import jax
import jax.numpy as jnp
import jax.scipy as jsp

a = jnp.array([[4.0, 1.0, -2.0, 0.5], [1.0, 2.0, 0.0, 1.0], [-2.0, 0.0, 3.0, -1.5], [0.5, 1.0, -1.5, 1.0]])
h = jnp.array([[2.0, 1.0 - 1.0j, 0.5j], [1.0 + 1.0j, 3.0, -1.0], [-0.5j, -1.0, 1.0]])

w, v = jnp.linalg.eigh(a)
print(w)
print(v)
print(jnp.linalg.eigh(a[:2, :2]))
print(jnp.linalg.eigh(a[:3, :3]))
w_h, v_h = jnp.linalg.eigh(h)
print(w_h, v_h.real, v_h.imag)
print(jnp.linalg.eigh(jnp.array([[1, -2j], [2j, 1]])))
print(jnp.linalg.eigvalsh(a))
print(jnp.linalg.eigh(jnp.eye(3) * 2.0))
print(jnp.linalg.eigh(jnp.array([[1.0, 2.0], [0.0, 1.0]])))
print(jnp.linalg.eigh(jnp.array([[5.0]])))
print(jnp.linalg.eigh(jnp.stack([a, -a, a @ a])))
print(jnp.linalg.eigh(jnp.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])))
print(jsp.linalg.eigh(a))
print(jsp.linalg.eigh(a, eigvals_only=True))
print(jax.lax.linalg.eigh(a))


def loss(x):
    w, v = jnp.linalg.eigh(x)
    return jnp.sum(w * jnp.arange(4.0)) + jnp.sum(v[:, 0] ** 2 * jnp.arange(4.0))


print(jax.grad(loss)(a))
print(jax.jvp(jnp.linalg.eigvalsh, (a,), (jnp.eye(4),)))
print(jax.jit(jnp.linalg.eigh)(a))
print(jax.vmap(jnp.linalg.eigvalsh)(jnp.stack([a, a * 2.0])))
print(jax.make_jaxpr(jnp.linalg.eigh)(a[:2, :2]))
result = tuple(jnp.linalg.eigh(a))
