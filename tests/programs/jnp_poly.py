import jax
import jax.numpy as jnp

# Sums and differences align the constant terms.
a = jnp.array([2, 3])
b = jnp.array([5, 4, 1])
print(jnp.polyadd(a, b), jnp.polyadd(b, a), jnp.polysub(a, b), jnp.polysub(b, a))
print(jnp.polyadd(jnp.array([1.5, 0.25]), jnp.array([2, 3])), jnp.polysub(jnp.array([1.0]), jnp.array([2])))
try:
    jnp.polysub(jnp.array([1.0]), 2)
except IndexError as e:
    print("IndexError", e)
m2 = jnp.array([[5, 7, 9], [8, 6, 4]])
print(jnp.polyadd(m2, jnp.array([2])), jnp.polysub(m2, jnp.array([2])))
print(jnp.polyadd(jnp.array([[2, 3, 1]]), m2))
try:
    jnp.polyadd(jnp.array([1, 3, 5]), m2)
except ValueError as e:
    print("ValueError", e)

# Derivatives and integrals: coefficients are floats.
p = jnp.array([3, -5, 0, 2, 7])
for m in [0, 1, 2, 4, 5, 6]:
    print(m, jnp.polyder(p, m))
q = jnp.array([1.5, -2.0, 0.25])
print(jnp.polyint(q), jnp.polyint(q, 2), jnp.polyint(q, 3, k=jnp.array([1.0, 2.0, 3.0])))
print(jnp.polyint(q, 2, k=7), jnp.polyint(q, 0), jnp.polyder(jnp.polyint(q, 2), 2))
b16 = jnp.polyint(jnp.array([5, 2], dtype=jnp.bfloat16))
print(b16.dtype, b16.astype(jnp.float32))
try:
    jnp.polyint(q, 2, k=jnp.array([1.0, 2.0, 3.0]))
except ValueError as e:
    print("ValueError", e)
try:
    jnp.polyder(q, -1)
except ValueError as e:
    print("ValueError", e)
print(jax.grad(lambda c: jnp.polyder(c, 1).sum())(q))

result = [jnp.polyadd(a, b), jnp.polyint(q, 2)]
