# Differentiation with complex numbers, JAX's conventions: grad of a real
# function of a complex input, holomorphic grads, vjp (cotangent not
# conjugated) and jvp, and the errors for complex outputs or real inputs.
import jax
import jax.numpy as jnp
from jax import grad, jvp, vjp


def energy(z):
    return jnp.sum(jnp.real(z) ** 2 - 3.0 * jnp.imag(z) + jnp.real(z * jnp.conj(z)))


z0 = jnp.array([1.0 - 2.0j, 0.5 + 0.25j, -3.0 + 1.0j])
print(grad(energy)(z0))
print(grad(lambda z: jnp.real(z) * jnp.imag(z))(2.0 + 5.0j))
print(grad(lambda z: z * z - 4 * z, holomorphic=True)(1.5 - 2j))
print(grad(lambda z: jnp.cos(z) + jnp.log(z), holomorphic=True)(3.0 + 4.0j))
print(grad(lambda z: jnp.conj(z), holomorphic=True)(2.0 - 1.0j))
print(grad(lambda z: z * z * z, holomorphic=True)(jnp.array(1.0 + 1.0j)))
print(grad(lambda x: jnp.real(jnp.sum((x * (1 + 2j)) ** 2)))(jnp.array([1.0, 2.0])))
out, pullback = vjp(lambda z: z * (2 + 1j) + jnp.conj(z), 1.0 + 1.0j)
print(out, pullback(1.0 + 0.0j)[0], pullback(0.5 - 2.0j)[0])
print(jvp(lambda z: z * z, (1.0 + 2.0j,), (0.5 + 0.0j,))[1])
print(jvp(lambda x: jnp.exp(1j * x), (jnp.array([0.5, 1.0]),), (jnp.array([1.0, 1.0]),)))
print(jvp(lambda x, y: jax.lax.complex(x, y) ** 2, (2.0, 3.0), (1.0, 0.0))[1])
for f, arg, kw in [
    (lambda z: z * z, 1.0 + 2.0j, {}),
    (lambda z: jnp.real(z), 1.0, {"holomorphic": True}),
    (lambda z: jnp.real(z), 1.0 + 1.0j, {"holomorphic": True}),
]:
    try:
        print(grad(f, **kw)(arg))
    except TypeError as e:
        print("TypeError:", e)
result = jnp.real(grad(energy)(z0))
