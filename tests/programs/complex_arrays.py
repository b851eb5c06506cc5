# complex64 arrays: building them from Python complexes and from real parts,
# arithmetic with promotion, parts, abs/angle, exp/log, comparisons, shape
# operations, sums, jit and how NumPy prints them.
import jax
import jax.numpy as jnp
from jax import lax

re = jnp.array([2.0, -1.5, 0.75, 4.0])
im = jnp.array([0.5, 3.0, -2.0, 0.0])
z = re + 1j * im
print(z)
print(repr(z))
print(z.dtype, z.shape, z.dtype == jnp.complex64)
print(z * z, z / (1 - 2j), z - 3, -z, 2 * z, z * re)
print(jnp.real(z), jnp.imag(z), jnp.conj(z), jnp.conjugate(z))
print(jnp.abs(z), jnp.angle(z), jnp.angle(re))
print(jnp.exp(z[:3]), jnp.log(z))
print(z == jnp.conj(z), z != 2 + 0.5j, z ** 2, lax.integer_pow(z, 3))
m = jnp.array([[1 + 2j, 3.5 - 0.25j, -1j], [1e-3j, 100, 2 - 2j]])
print(m)
print(repr(m))
print(m.T, m[1], m[:, 2], m.reshape(3, 2), m.real, m.imag, m.conj())
print(jnp.sum(m), jnp.sum(m, axis=0), jnp.sum(m, axis=1))
print(lax.complex(re, im), lax.real(z), lax.imag(z), lax.conj(z))
print(jnp.array([1, 2, 3], dtype=jnp.complex64), re.astype(jnp.complex64))
print(jnp.zeros(2, dtype=jnp.complex64), jnp.ones((2, 1)) * 1j)
print(jnp.concatenate([z, jnp.conj(z)]), jnp.where(re > 0, z, 0))
print(z[1], z[1].item(), jnp.stack([z, z])[1, 3], z[::-1])
print(jax.jit(lambda a: a * a + 1j)(z))
print(jax.make_jaxpr(lambda a: jnp.real(a * jnp.conj(a)))(z))
big = jnp.array([1e7 + 1j, 1 - 1e-6j])
print(big, jnp.array([3 + 4j, 1 + 1j]), jnp.array([0.5j, -0.25]))
result = [jnp.real(jnp.sum(z * z)), jnp.abs(z)]
