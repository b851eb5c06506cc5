import jax
import jax.numpy as jnp

a = jnp.array([1.0, 2.0, 3.0])
b = jnp.array([2.0, -1.0])
print(jnp.polymul(a, b), jnp.polymul(jnp.array([1, 1]), jnp.array([1, -1])))
print(jnp.polymul(a, jnp.array([], dtype=jnp.float32)))
q, r = jnp.polydiv(jnp.array([1.0, -3.0, 2.0, 5.0]), jnp.array([1.0, -1.0]))
print(q, r)
print(jnp.polydiv(jnp.array([4, 2]), jnp.array([2, 1, 3])))
print(jnp.poly(jnp.array([1.0, 2.0, -3.0])), jnp.poly(jnp.array([2])), jnp.poly(jnp.array([], dtype=jnp.float32)))
print(jax.grad(lambda r: jnp.poly(r).sum())(jnp.array([1.0, 2.0])))
print(jax.jit(jnp.polymul)(a, b))
try:
    jnp.polymul([1.0], a)
except TypeError as e:
    print("TypeError", e)

result = [jnp.polymul(a, b), q, r]
