# stdout: exact digits
# Products and arithmetic with jax.experimental.sparse.BCOO: @ with dense
# vectors and matrices on either side (summed in stored order, as JAX
# does), bcoo_dot_general, * and / by scalars and dense arrays, negation,
# sums, and jit / grad / sparse.grad through a BCOO.
import jax
import jax.numpy as jnp
from jax.experimental import sparse

k = jax.random.key(3)
A = jax.random.normal(k, (5, 4))
A = jnp.where(jnp.abs(A) < 0.6, 0., A)
S = sparse.BCOO.fromdense(A)
v = jax.random.uniform(jax.random.key(4), (4,))
w = jax.random.uniform(jax.random.key(5), (5,))
X = jax.random.normal(jax.random.key(6), (4, 3))
print(repr(S))
print(S @ v)
print(S.T @ w)
print(w @ S)
print(S @ X)
print(X.T @ S.T)
print(sparse.bcoo_dot_general(S, X, dimension_numbers=(((1,), (0,)), ((), ()))))
print(sparse.bcoo_dot_general(X.T, S, dimension_numbers=(((1,), (1,)), ((), ()))))
I = sparse.BCOO.fromdense(jnp.arange(12).reshape(3, 4))
print(I @ jnp.array([1, 2, 3, 4]), (I @ jnp.array([1., 2., 3., 4.])).dtype)
print((2 * I.T @ jnp.array([3, 4, 2])))

# Elementwise with scalars and arrays of the same shape.
print(repr(S * 2.5), (S * 2.5).data)
print((3 * S).data, (S / 3.0).data, (I / 2).data, (I * 1.5).dtype)
print((S * A).data, (A * S).todense())
print((-S).data, sparse.bcoo_multiply_dense(S, A))
print(S.sum(), I.sum())
print(repr(S + S), (S + S).todense().tolist() == (2 * A).tolist())
print((S + A).sum(), (S - S).nse)

# Transformations.
f = lambda y: (S.T @ y).sum()
print(jax.grad(f)(w), jax.jit(jax.grad(f))(w))
print(jax.jit(lambda m, y: m @ y)(S, v))
g = lambda m, y: (m @ y).sum()
print(repr(jax.grad(g, argnums=1)(S, v)))
print(sparse.grad(g)(S, v), sparse.grad(g)(S, v).indices.tolist() == S.indices.tolist())
val, gr = sparse.value_and_grad(g, argnums=(0, 1))(S, v)
print(val, repr(gr[0]), gr[0].data, gr[1])
x6 = sparse.BCOO.fromdense(jnp.arange(6.))
print(sparse.value_and_grad(lambda X, y: X @ y)(x6, jnp.ones(6)))
print(sparse.grad(lambda X, y: X @ y)(x6, jnp.ones(6)))
