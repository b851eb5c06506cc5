# Several integer-array indices pair up element by element (broadcast
# together) rather than taking every combination; the indexed dimensions
# go where the indexed axes were when they are adjacent, first otherwise.
import jax
import jax.numpy as jnp

m = jnp.arange(20.0).reshape(4, 5)
t = jnp.arange(60).reshape(3, 4, 5)
rows, cols = jnp.array([3, 3, 0]), jnp.array([1, 2, -1])
print(m[rows, cols], m[jnp.array([[0], [2]]), jnp.array([1, 4])])
print(t[jnp.array([0, 2]), :, jnp.array([1, -1])])
print(t[:, jnp.array([[0], [3]]), jnp.array([1, 2, 4])])
print(t[1, :, jnp.array([0, 4])], t[..., jnp.array([0, 1]), jnp.array([2, 3])])
print(t[None, 2, jnp.array([1, 3])])
print(m.at[rows, cols].set(-1.0))
print(m.at[jnp.array([0, 0, 1]), jnp.array([1, 1, 1])].add(10.0))
print(jax.jit(lambda x, i, j: x[i, j])(m, rows, cols))
print(jax.grad(lambda x: (x[rows, cols] ** 2).sum())(m))
v = jnp.zeros(4)
print(v.at[jnp.array([0, 0, 2])].add(1.0), v.at[jnp.array([1, 1, 9])].add(jnp.array([1.0, 2.0, 3.0])))
print(jax.grad(lambda u: (v.at[jnp.array([0, 0, 3])].add(u) ** 2).sum())(jnp.array([1.0, 2.0, 3.0])))
print(jax.jit(lambda u: v.at[jnp.array([2, 2])].add(u))(5.0))
result = m[rows, cols]
