# The symmetric eigendecomposition as JAX's CPU backend computes it
# (tridiagonal reduction, implicit QL/QR): jnp.linalg.eigh and eigvalsh,
# jax.scipy.linalg.eigh, lax.linalg.eigh; real and complex Hermitian
# matrices, repeated and negative eigenvalues, batches, non-symmetric input
# symmetrized, and derivatives in both modes.
import jax
import jax.numpy as jnp
import jax.scipy as jsp

a = jnp.array([[4.0, 1.0, -2.0, 0.5], [1.0, 2.0, 0.0, 1.0], [-2.0, 0.0, 3.0, -1.5], [0.5, 1.0, -1.5, 1.0]])


def tree(x):
    return jax.tree.leaves(x)


def show(*xs):
    # Rounded: the eigenvalues agree with LAPACK's to a few float32 ulps.
    print(*[jnp.round(x, 5) for x in xs])


h = jnp.array([[2.0, 1.0 - 1.0j, 0.5j], [1.0 + 1.0j, 3.0, -1.0], [-0.5j, -1.0, 1.0]])

w, v = jnp.linalg.eigh(a)
show(w)
show(v)
show(*tree(jnp.linalg.eigh(a[:2, :2])))
show(*tree(jnp.linalg.eigh(a[:3, :3])))
w_h, v_h = jnp.linalg.eigh(h)
show(w_h, v_h.real, v_h.imag)
w_c, v_c = jnp.linalg.eigh(jnp.array([[1, -2j], [2j, 1]]))
show(w_c, v_c.real, v_c.imag)
show(*tree(jnp.linalg.eigvalsh(a)))
show(*tree(jnp.linalg.eigh(jnp.eye(3) * 2.0)))
show(*tree(jnp.linalg.eigh(jnp.array([[1.0, 2.0], [0.0, 1.0]]))))
show(*tree(jnp.linalg.eigh(jnp.array([[5.0]]))))
show(*tree(jnp.linalg.eigh(jnp.stack([a, -a, a @ a]))))
show(*tree(jnp.linalg.eigh(jnp.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]))))
show(*tree(jsp.linalg.eigh(a)))
show(*tree(jsp.linalg.eigh(a, eigvals_only=True)))
show(*tree(jax.lax.linalg.eigh(a)))


def loss(x):
    w, v = jnp.linalg.eigh(x)
    return jnp.sum(w * jnp.arange(4.0)) + jnp.sum(v[:, 0] ** 2 * jnp.arange(4.0))


show(jax.grad(loss)(a))
show(*tree(jax.jvp(jnp.linalg.eigvalsh, (a,), (jnp.eye(4),))))
show(*tree(jax.jit(jnp.linalg.eigh)(a)))
show(*tree(jax.vmap(jnp.linalg.eigvalsh)(jnp.stack([a, a * 2.0]))))
print(jax.make_jaxpr(jnp.linalg.eigh)(a[:2, :2]))
result = tuple(jnp.linalg.eigh(a))
