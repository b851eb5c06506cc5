# stdout: exact digits
# jax.experimental.sparse.sparsify: dense jax.numpy code run on BCOO
# arguments (zero-preserving functions act on the stored values, products
# and sums use the sparse operations).
import jax
import jax.numpy as jnp
from jax.experimental import sparse

M = jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]])
M_sp = sparse.BCOO.fromdense(M)
y = jnp.array([3., 6., 5.])

def f(M, v):
    return 2 * jnp.dot(jnp.log1p(M.T), v) + 1

print(f(M, y))
print(sparse.sparsify(f)(M_sp, y))

mat = jax.random.uniform(jax.random.key(1701), (5, 5))
mat = mat.at[mat < 0.5].set(0)
vec = jax.random.uniform(jax.random.key(42), (5,))

def g(mat, vec):
    return -(jnp.sin(mat) @ vec)

print(g(mat, vec))
print(sparse.sparsify(g)(sparse.BCOO.fromdense(mat), vec))

@sparse.sparsify
def h(M, v):
    return 2 * M.T @ v

print(h(sparse.BCOO.fromdense(jnp.arange(12).reshape(3, 4)), jnp.array([3, 4, 2])))

@sparse.sparsify
def k(M):
    return jnp.sum(jnp.tanh(M) * 3.0), jnp.abs(jnp.negative(M))

total, a = k(M_sp)
print(total, repr(a), a.data)
print(sparse.sparsify(lambda m: jnp.sqrt(m) + jnp.sqrt(m))(M_sp).todense())
print(sparse.sparsify(lambda m, d: jnp.multiply(m, d))(M_sp, M).data)
print(sparse.sparsify(lambda m, x: jnp.matmul(m, x))(M_sp, jnp.ones((4, 2))))
print(jnp.sin(M).sum())
