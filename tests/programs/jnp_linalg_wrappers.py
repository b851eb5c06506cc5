# The thin functions of jnp.linalg (the array-API spellings): matmul,
# matrix_transpose, outer, cross, diagonal, trace, vector_norm,
# matrix_norm, matrix_power, multi_dot, tensorinv, tensorsolve, vecdot and
# tensordot, and jnp.vecdot, on vectors, matrices and batches.
import jax
import jax.numpy as jnp

a = jnp.array([[2.0, -1.0, 0.5], [4.0, 1.5, -2.0], [-1.0, 3.0, 2.5]])
b = jnp.arange(12.0).reshape(3, 4)
v = jnp.array([1.0, -2.0, 3.0])
w = jnp.array([0.5, 4.0, -1.0])

print(jnp.linalg.matmul(a, b))
print(jnp.linalg.matrix_transpose(jnp.arange(24).reshape(2, 3, 4)).shape)
print(jnp.linalg.outer(v, w), jnp.linalg.outer(jnp.array([1, 2]), jnp.array([1.5, 2.0, 3.0])))
print(jnp.linalg.cross(v, w))
print(jnp.linalg.cross(jnp.stack([v, w]), jnp.stack([w, v])))
print(jnp.linalg.cross(jnp.stack([v, w], axis=1), jnp.stack([w, v], axis=1), axis=0))
print(jnp.linalg.diagonal(a), jnp.linalg.diagonal(b, offset=1))
print(jnp.linalg.trace(a), jnp.linalg.trace(jnp.stack([a, 2 * a])), jnp.linalg.trace(b, offset=-1))
print(jnp.linalg.vector_norm(v), jnp.linalg.vector_norm(a), jnp.linalg.vector_norm(a, axis=0))
print(jnp.linalg.vector_norm(a, ord=1, axis=1), jnp.linalg.vector_norm(v, ord=jnp.inf))
print(jnp.linalg.vector_norm(a, ord=-jnp.inf, axis=(0, 1)), jnp.linalg.vector_norm(v, ord=0))
print(jnp.linalg.vector_norm(v, ord=3), jnp.linalg.vector_norm(a, axis=1, keepdims=True))
print(jnp.linalg.matrix_norm(a), jnp.linalg.matrix_norm(a, ord=1), jnp.linalg.matrix_norm(a, ord=jnp.inf))
print(jnp.linalg.matrix_norm(jnp.stack([a, -a]), keepdims=True).shape)
print(jnp.linalg.matrix_power(a, 0))
print(jnp.linalg.matrix_power(a, 2), jnp.linalg.matrix_power(a, 5))
print(jnp.linalg.matrix_power(a, -2))
print(jnp.linalg.matrix_power(jnp.array([[1, 1], [1, 0]]), 10))
print(jnp.linalg.multi_dot([a, b, b.T]))
print(jnp.linalg.multi_dot([v, a, b]))
print(jnp.linalg.multi_dot([b.T, a, a, v]))
t = jnp.eye(6).reshape(2, 3, 6) * 2.0 + 0.1 * jnp.arange(36.0).reshape(2, 3, 6) / 36.0
print(jnp.linalg.tensorinv(t.reshape(6, 2, 3), ind=1).shape)
print(jnp.linalg.tensorinv(t, ind=2))
print(jnp.linalg.tensorsolve(t, jnp.arange(6.0).reshape(2, 3)))
print(jnp.linalg.vecdot(a, b.T[:3]), jnp.linalg.vecdot(a, v, axis=0))
print(jnp.vecdot(jnp.array([1.0 + 1.0j, 2.0]), jnp.array([1.0j, 3.0])))
print(jnp.linalg.tensordot(a, b, axes=1), jnp.linalg.tensordot(a, a))
print(jax.grad(lambda m: jnp.linalg.trace(jnp.linalg.matrix_power(m, 3)))(a))
print(jax.jit(jnp.linalg.cross)(v, w))
result = jnp.linalg.multi_dot([a, b, b.T])
