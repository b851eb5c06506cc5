# x.at[idx].op(v) where idx names a position more than once: every update
# applies, one after another in index order, as XLA's scatter applies them.
import jax
import jax.numpy as jnp

idx = jnp.array([1, 1, 4, 1, 0, 4])
v = jnp.arange(5)
print(v.at[idx].mul(3), v.at[idx].add(2), v.at[idx].set(jnp.arange(6)))
print(v.at[idx].min(jnp.array([5, -2, 7, 3, 9, 1])), v.at[idx].max(jnp.array([5, -2, 7, 3, 9, 1])))
print(v.at[idx].subtract(1), v.at[idx].multiply(jnp.array([2, 3, 4, 5, 6, 7])))

# float updates: ((x + u1) + u2) rounds differently from x + (u1 + u2)
big = jnp.array([1e8, 1.0, 16777216.0], dtype=jnp.float32)
print(big.at[jnp.array([0, 0, 2, 2])].add(jnp.array([3.0, 3.0, 1.0, 1.0])))
print(big.at[jnp.array([1, 1, 1])].multiply(jnp.array([0.1, 3.0, 1.7])))
print(big.at[jnp.array([2, 2])].subtract(jnp.array([0.5, 0.5])))
w = jnp.linspace(0.1, 1.7, 7, dtype=jnp.float32)
print(jnp.zeros(3).at[jnp.array([0, 1, 0, 2, 0, 1, 0])].add(w))
print(jnp.full(3, 1.1).at[jnp.array([0, 1, 0, 2, 0, 1, 0])].add(w))
print(jax.jit(lambda x, u: x.at[jnp.array([0, 0, 2])].add(u))(big, jnp.array([3.0, 3.0, 1.0])))
print(jnp.ones((2, 3)).at[jnp.array([1, 1]), 2].mul(jnp.array([2.5, 4.0])))

result = {"add": big.at[jnp.array([0, 0, 2, 2])].add(jnp.array([3.0, 3.0, 1.0, 1.0])), "mul": v.at[idx].mul(3)}
