import jax
import jax.numpy as jnp

a = jnp.array([5, 1, 3, 3, 9, 1, 7])
b = jnp.array([[3, 8], [1, 10]])
print(jnp.isin(a, b))
print(jnp.isin(a, b, invert=True))
print(jnp.isin(jnp.array([[1.5, 2.0], [3.0, 0.0]]), jnp.array([2, 0])))
print(jax.jit(jnp.isin)(a, jnp.array([7, 9])))
print(jnp.union1d(a, b))
print(jnp.union1d(a, jnp.array([2.5])))
print(jnp.union1d(a, b, size=10, fill_value=-1))
print(jnp.intersect1d(a, b))
vals, ia, ib = jnp.intersect1d(a, jnp.array([9, 3, 3, 4, 5]), return_indices=True)
print(vals, ia, ib)
print(jnp.setdiff1d(a, b))
print(jnp.setdiff1d(a, b, size=6))
print(jnp.setdiff1d(a, b, size=2, fill_value=0))
print(jnp.setxor1d(a, b))
print(jnp.setxor1d(jnp.array([1.0, 2.0]), jnp.array([2, 4])))

x = jnp.array([[4, 2, 4], [0, 2, 7]])
r = jnp.unique_all(x)
print(r)
print(r.values, r.indices, r.inverse_indices, r.counts)
c = jnp.unique_counts(jnp.array([2.0, jnp.nan, 2.0, jnp.nan]))
print(c.values, c.counts)
v, inv = jnp.unique_inverse(x)
print(v, inv)
print(jnp.unique_counts(x, size=5, fill_value=0))
try:
    jax.jit(jnp.setdiff1d)(a, b)
except Exception as e:
    print(type(e).__name__)
