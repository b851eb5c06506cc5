# jnp.linalg.norm with the orders JAX computes without a singular value
# decomposition: vectors (p-norms, inf, 0), matrices (fro, 1, inf, -1,
# -inf), over chosen axes, with keepdims, on complex input; and the errors.
import jax
import jax.numpy as jnp

v = jnp.array([3.0, -4.0, 0.0, 1.5])
m = jnp.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.5]])
z = jnp.array([3.0 + 4.0j, -1.0j, 2.0])
norm = jnp.linalg.norm

print(norm(v), norm(v, 2), norm(v, 1), norm(v, jnp.inf), norm(v, -jnp.inf), norm(v, 0), norm(v, 3), norm(v, 0.5))
print(norm(m), norm(m, "fro"), norm(m, 1), norm(m, -1), norm(m, jnp.inf), norm(m, -jnp.inf))
print(norm(m, axis=1), norm(m, 1, axis=0), norm(m, jnp.inf, axis=-1, keepdims=True))
print(norm(m, 1, axis=(1, 0)), norm(m, jnp.inf, keepdims=True))
print(norm(jnp.stack([m, 2 * m]), 1, axis=(1, 2)), norm(jnp.stack([m, m]), axis=(0, 2)))
print(norm(z), norm(z, 1), norm(z, jnp.inf), norm(jnp.array([1, 2, 2])))
print(jax.grad(lambda x: norm(x, 3))(v), jax.grad(lambda x: norm(x, 1))(jnp.abs(m)))
for f in [lambda: norm(v, "fro"), lambda: norm(m, "bad"), lambda: norm(m, 3), lambda: norm(jnp.ones((2, 2, 2)), 1)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
result = norm(m, jnp.inf, axis=1)
