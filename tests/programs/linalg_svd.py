# The singular value decomposition and what is built on it: jnp.linalg.svd's
# values, svdvals, matrix_rank, pinv, lstsq, cond, the 2- and
# nuclear norms; jax.scipy.linalg.svd and lax.linalg.svd without their
# singular vectors (whose signs follow LAPACK's path, which shardlab does
# not take).
import jax
import jax.numpy as jnp
import jax.scipy as jsp

x = jnp.array([[1.0, 2.0, 3.0], [6.0, 5.0, 4.0]])
a = jnp.array([[2.0, -1.0, 0.5], [4.0, 1.5, -2.0], [-1.0, 3.0, 2.5], [0.5, -2.0, 1.0]])

print(jnp.linalg.svd(a, compute_uv=False))
print(jnp.linalg.svdvals(jnp.stack([a[:3], a[1:]])))
print(jnp.linalg.svdvals(jnp.array([[1, 2], [2, 4]])))
print(jnp.linalg.matrix_rank(a), jnp.linalg.matrix_rank(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
print(jnp.linalg.matrix_rank(jnp.arange(9.0).reshape(3, 3)))
print(jnp.linalg.pinv(a))
print(jnp.linalg.pinv(x))
print(jnp.linalg.pinv(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
sol, resid, rank, sv = jnp.linalg.lstsq(a, jnp.array([1.0, 2.0, 0.5, -1.0]))
print(sol, resid, rank, sv)
print(jnp.linalg.lstsq(x, jnp.array([[1.0, 0.0], [0.0, 1.0]])))
print(jnp.linalg.cond(a[:3]), jnp.linalg.cond(x))
print(jnp.linalg.cond(a[:3], p=1), jnp.linalg.cond(a[:3], p="fro"), jnp.linalg.cond(a[:3], p=-2), jnp.linalg.cond(a[:3], p=jnp.inf))
print(jnp.linalg.norm(a, ord=2), jnp.linalg.norm(a, ord=-2), jnp.linalg.norm(a, ord="nuc"))
print(jnp.linalg.norm(jnp.stack([a, 2 * a]), ord="nuc", axis=(1, 2), keepdims=True))
print(jsp.linalg.svd(x, compute_uv=False))
print(jax.lax.linalg.svd(a, compute_uv=False))
print(jax.grad(lambda m: jnp.linalg.norm(m, ord="nuc"))(a))
print(jax.grad(lambda m: jnp.sum(jnp.linalg.svdvals(m) * jnp.array([1.0, 0.5])))(x))
print(jax.jit(jnp.linalg.svdvals)(a))
print(jax.make_jaxpr(jnp.linalg.svdvals)(x))
result = jnp.linalg.svdvals(a)
