# The gradient of a real function of a complex Python number is a strong
# complex64 (the transposes of real and imag build it from a strong zero);
# a holomorphic gradient keeps the argument's weak type, as a real one does.
import jax
import jax.numpy as jnp

z = 3.0 + 4.0j
print(repr(jax.grad(lambda z: jnp.real(z) ** 2 + jnp.imag(z) ** 2)(z)))
print(repr(jax.grad(lambda z: (z * z).real)(z)))
print(repr(jax.grad(lambda z: z ** 2, holomorphic=True)(z)))
print(repr(jax.grad(lambda z: jnp.cos(z), holomorphic=True)(z)))
print(repr(jax.grad(lambda x: x ** 3)(2.0)))
print(repr(jax.grad(lambda x, y: jnp.real(x), argnums=1)(1.0 + 1.0j, 2.0)))
result = jnp.imag(jax.grad(lambda z: (z * z).real)(z))
