# jnp.einsum's interleaved form: operands alternating with index lists,
# the output implicit (indices used once, sorted) or given last, matching
# the string form; an Ellipsis in the lists; under jit.
import jax
import jax.numpy as jnp

x = jnp.arange(4)
y = jnp.array([5, 4, 3, 2])
M = jnp.arange(12).reshape(3, 4)
print(jnp.einsum(x, (0,), y, (0,)), jnp.einsum(x, [0], y, [0], []))
print(jnp.einsum(M, (0, 1), x, (1,), (0,)), jnp.einsum(M, [0, 1], x, [1]))
print(jnp.einsum(x, (0,), y, (1,), (0, 1)))
print(jnp.einsum(x, (0,), y, (1,)))
print(jnp.einsum(x, (0,), ()), jnp.einsum(M, (1, 0)), jnp.einsum(M, (0, 1), (1, 0)))
print(jnp.einsum(M, (..., 0), (...,)), jnp.einsum('...j->...', M))
a = jnp.arange(30).reshape(2, 3, 5)
b = jnp.arange(60).reshape(3, 4, 5)
print(jnp.einsum(a, (0, 1, 2), b, (1, 3, 2), (0, 3)))
print(jnp.einsum(a, (0, 1, 2), b, (1, 3, 2)), jnp.einsum('ijk,jlk', a, b))
print(jnp.einsum(a, [7, 3, 9], b, [3, 1, 9]), jnp.einsum(a, [7, 3, 9], b, [3, 1, 9], [1, 7]))
f = jnp.array([[1.5, -2.0], [0.5, 4.0]])
print(jax.jit(lambda p, q: jnp.einsum(p, [0, 1], q, [1, 2], [2, 0]))(f, f))
print(jnp.einsum(f, [0, 1], jnp.array([1.0, 2.0]), [1]).dtype)
result = jnp.einsum(M, [0, 1], M, [2, 1], [0, 2])
B = jnp.arange(24.0).reshape(2, 3, 4)
print(jnp.einsum('...ij,...kj->...ik', B, B)[1], jnp.einsum(B, [..., 0, 1], B, [..., 2, 1])[0])
print(jnp.einsum('i...->...', B).shape, jnp.einsum('...i,i', B, jnp.ones(4)).shape)
