# LU factors with partial pivoting and what is built on them: solve, inv,
# det and slogdet in jnp.linalg; lu, lu_pivots_to_permutation and lu_solve
# in jax.lax.linalg; lu, lu_factor, lu_solve, solve, inv, det in
# jax.scipy.linalg; real and complex matrices, batches, vectors and
# matrices on the right, a singular matrix, derivatives in both modes.
import jax
import jax.numpy as jnp
import jax.scipy as jsp

a = jnp.array([[2.0, -1.0, 0.5, 3.0], [4.0, 1.5, -2.0, 0.0], [-1.0, 3.0, 2.5, 1.0], [0.5, -2.0, 1.0, 4.0]])
b = jnp.array([1.0, -2.0, 0.5, 3.0])
cm = jnp.array([[1.0 + 1.0j, 2.0, -0.5j], [0.5, -1.0 + 2.0j, 1.0], [3.0j, 1.0, 2.0 - 1.0j]])

lu, piv, perm = jax.lax.linalg.lu(a)
print(lu)
print(piv, perm)
print(jax.lax.linalg.lu(cm))
print(jax.lax.linalg.lu(jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])))
print(jax.lax.linalg.lu(jnp.array([[1.0, 2.0], [4.0, 5.0], [7.0, 9.0]])))
print(jax.lax.linalg.lu_pivots_to_permutation(piv, 4))
print(jnp.linalg.solve(a, b))
print(jnp.linalg.solve(a, jnp.stack([b, b * 2.0 - 1.0], axis=1)))
print(jnp.linalg.solve(jnp.stack([a, a.T]), b))
print(jnp.linalg.solve(cm, jnp.array([1.0, 2.0j, -1.0])))
print(jnp.linalg.solve(jnp.array([[1, 2], [3, 4]]), jnp.array([5, 6])))
print(jnp.linalg.inv(a))
print(jnp.linalg.inv(cm))
print(jnp.linalg.inv(jnp.stack([a, a + jnp.eye(4)])))
print(jnp.linalg.inv(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
print(jnp.linalg.det(a), jnp.linalg.det(a[:3, :3]), jnp.linalg.det(a[:2, :2]), jnp.linalg.det(a[:1, :1]))
print(jnp.linalg.det(cm))
print(jnp.linalg.det(jnp.ones((4, 4))))
print(jnp.linalg.slogdet(a))
print(jnp.linalg.slogdet(a[:2, :2]))
print(jnp.linalg.slogdet(-a[:1, :1]))
print(jnp.linalg.slogdet(cm))
sign, logdet = jnp.linalg.slogdet(jnp.stack([a, -a, a * 0.0]))
print(sign, logdet)
p, l, u = jsp.linalg.lu(a)
print(p)
print(l)
print(u)
print(jsp.linalg.lu(jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), permute_l=True))
lu2, piv2 = jsp.linalg.lu_factor(a)
print(lu2, piv2)
print(jsp.linalg.lu_solve((lu2, piv2), b))
print(jsp.linalg.lu_solve((lu2, piv2), b, trans=1))
print(jsp.linalg.lu_solve(jsp.linalg.lu_factor(cm), jnp.array([1.0, 2.0j, -1.0]), trans=2))
print(jsp.linalg.lu_solve((lu, piv), jnp.stack([b, -b], axis=1)))
print(jsp.linalg.solve(a, b))
print(jsp.linalg.inv(a[:3, :3]))
print(jsp.linalg.det(a))


@jax.jit
def jitted(m, v):
    lu_, piv_ = jsp.linalg.lu_factor(m)
    return jsp.linalg.lu_solve((lu_, piv_), v), jnp.linalg.det(m)


print(jitted(a, b))
print(jax.vmap(jnp.linalg.solve)(jnp.stack([a, a.T]), jnp.stack([b, -b])))


def loss(m, v):
    return jnp.sum(jnp.linalg.solve(m, v) * jnp.arange(4.0))


print(jax.grad(loss, argnums=(0, 1))(a, b))
print(jax.jvp(lambda m: jnp.linalg.inv(m), (a,), (jnp.ones((4, 4)),))[1])
print(jax.grad(lambda m: jnp.linalg.det(m))(a[:3, :3]))
print(jax.grad(lambda m: jnp.sum(jax.lax.linalg.lu(m)[0] * jnp.arange(16.0).reshape(4, 4)))(a))
print(jax.jvp(lambda m: jax.lax.linalg.lu(m)[0], (a,), (jnp.eye(4),))[1])
print(jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(a))
