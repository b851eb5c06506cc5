# nonzero/argwhere/flatnonzero/where(cond) with size= and fill_value=,
# searchsorted, digitize, bincount, take_along_axis, repeat, diagonals,
# triangle and grid indices; under jit, grad and vmap.
import jax, jax.numpy as jnp

y = jnp.array([[0, 5, 0], [7, 0, 2]])
print(jnp.nonzero(y), jnp.argwhere(y), jnp.flatnonzero(y), jnp.where(y > 1))
print(jnp.nonzero(y, size=5, fill_value=-1), jnp.argwhere(y, size=2))
print(jax.jit(lambda a: jnp.flatnonzero(a, size=4, fill_value=9))(y))
try:
    jax.jit(lambda a: jnp.nonzero(a))(y)
except jax.errors.ConcretizationTypeError as e:
    print("ConcretizationTypeError:", "size argument" in str(e))
s = jnp.array([0.5, 1.0, 1.0, 3.0, jnp.nan])
q = jnp.array([1.0, -2.0, 2.0, jnp.nan, 9.0])
print(jnp.searchsorted(s, q), jnp.searchsorted(s, q, side="right"), jnp.searchsorted(s, 1.0))
print(jnp.digitize(jnp.array([0.3, 2.0, 7.5]), jnp.array([0.0, 1.0, 5.0])))
print(jnp.digitize(jnp.array([0.3, 2.0, 7.5]), jnp.array([5.0, 1.0, 0.0]), right=True))
print(jnp.bincount(jnp.array([3, 0, 3, 1])), jnp.bincount(jnp.array([1, 1, 4]), minlength=6))
print(jax.jit(lambda i, w: jnp.bincount(i, w, length=3))(jnp.array([0, 2, 2, 5, -1]), jnp.arange(5.0)))
a = jnp.arange(12.0).reshape(3, 4)
idx = jnp.array([[3, 0], [-1, 1], [2, 2]])
print(jnp.take_along_axis(a, idx, axis=1), jnp.take_along_axis(a, jnp.array([[2, 0, 1, 1]]), axis=0))
print(jnp.take_along_axis(a, jnp.argsort(-a, axis=1), axis=1))
print(jax.grad(lambda v: jnp.take_along_axis(v, idx, axis=1).sum())(a))
print(jnp.repeat(jnp.arange(3), 3), jnp.repeat(a[:2], jnp.array([2, 1]), axis=0))
print(jnp.repeat(a, 2, axis=1).shape, jax.jit(lambda r: jnp.repeat(jnp.arange(3.0), r, total_repeat_length=6))(jnp.array([1, 3, 1])))
print(jnp.diag(a), jnp.diag(a, k=2), jnp.diag(jnp.array([1, 2, 3]), k=1), jnp.diagflat(jnp.ones((2, 2)), -1))
print(jnp.diagonal(jnp.arange(24).reshape(2, 3, 4), offset=1, axis1=1, axis2=2))
print(jnp.tril_indices(3, k=-1), jnp.triu_indices(2, m=3), jnp.diag_indices(3, ndim=3))
print(jnp.indices((2, 2)), jnp.indices((2, 3), sparse=True))
print(jnp.meshgrid(jnp.arange(3), jnp.arange(2.0)), jnp.meshgrid(jnp.arange(2), jnp.arange(3), indexing="ij", sparse=True))
print(jax.vmap(lambda v: jnp.searchsorted(jnp.array([1.0, 2.0, 3.0]), v))(jnp.array([[0.0, 2.5], [3.0, 4.0]])))
result = jnp.take_along_axis(a, idx, axis=1)
print(jnp.tri(3), jnp.tri(2, 4, k=1, dtype=jnp.int32), jnp.diag_indices_from(jnp.ones((2, 2))))
print(jnp.trace(a), jnp.trace(a, offset=1), jnp.trace(jnp.arange(8).reshape(2, 2, 2), axis1=1, axis2=2))
