# stdout: exact digits
# jax.experimental.sparse.BCOO: made from dense arrays and from buffers, its
# attributes and repr, back to dense, transposes, sorting and summing
# duplicates, eye and empty.
import jax
import jax.numpy as jnp
from jax.experimental import sparse

M = jnp.array([[0., 1.5, 0., -2.], [3., 0., 0., 0.], [0., 0., 4.25, 0.]])
S = sparse.BCOO.fromdense(M)
print(repr(S), S.nse, S.n_batch, S.n_sparse, S.n_dense, S.ndim, S.size, S.shape, S.dtype)
print(repr(S.data))
print(repr(S.indices))
print(repr(S.todense()))
print(S.indices_sorted, S.unique_indices, type(S).__name__, len(S))

# More stored entries than nonzeros: padding at out-of-range indices.
P = sparse.bcoo_fromdense(M, nse=6)
print(repr(P), P.data, P.indices.tolist())
print(sparse.todense(P))
print(sparse.todense(M) is M)

# Batch and dense dimensions.
B = sparse.BCOO.fromdense(jnp.arange(12.).reshape(3, 4) % 3, n_batch=1)
print(repr(B), B.data.shape, B.indices.shape)
print(B.data, B.indices.tolist())
print(B.todense())
D = sparse.BCOO.fromdense(jnp.array([[0., 0.], [1., 0.], [0., 0.], [2., 3.]]), n_dense=1)
print(repr(D), D.data.tolist(), D.indices.tolist())
print(D.todense())

# From buffers, with a repeated index: todense adds them up.
data = jnp.array([1., 3., 5., 0.25])
idx = jnp.array([[0, 0], [1, 1], [2, 2], [1, 1]])
mat = sparse.BCOO((data, idx), shape=(3, 3))
print(repr(mat), mat.indices_sorted, mat.unique_indices)
print(mat.todense())
u = mat.sum_duplicates()
print(repr(u), u.data, u.indices.tolist(), u.indices_sorted, u.unique_indices)
z = sparse.BCOO((jnp.array([2., 0., 1.]), jnp.array([[2, 1], [0, 0], [0, 1]])), shape=(3, 2))
print(repr(z.sum_duplicates()), z.sum_duplicates().data)
print(z.sum_duplicates(nse=5).indices.tolist(), z.sum_duplicates(nse=5).data)
print(sparse.bcoo_sum_duplicates(z).data, sparse.bcoo_sum_duplicates(z).indices.tolist())
s = z.sort_indices()
print(s.data, s.indices.tolist(), s.indices_sorted)

# Transposes.
T = S.T
print(repr(T), T.indices.tolist(), T.indices_sorted)
print(T.todense())
print(S.transpose((1, 0)).todense().tolist() == M.T.tolist())
print(sparse.bcoo_transpose(S, permutation=(1, 0)).indices.tolist())

# eye and empty.
E = sparse.eye(3)
print(repr(E), E.data, E.indices.tolist())
print(sparse.eye(3, 4, k=1).todense())
print(sparse.eye(4, 3, k=-2, dtype=jnp.int32).todense())
e = sparse.empty((2, 3), nse=2)
print(repr(e), e.data, e.indices.tolist(), e.todense())

# Integer data.
I = sparse.BCOO.fromdense(jnp.arange(6).reshape(2, 3))
print(repr(I), I.data, I.todense().dtype)

# Under jit: a BCOO is a pytree of its data and indices.
leaves, tree = jax.tree_util.tree_flatten(S)
print(len(leaves), [l.shape for l in leaves])
rebuilt = jax.tree_util.tree_unflatten(tree, leaves)
print(repr(rebuilt), rebuilt.todense().tolist() == M.tolist())
print(jax.jit(lambda m: m.todense() * 2)(S))
print(jax.jit(lambda x: sparse.BCOO.fromdense(x, nse=4).data)(M))
