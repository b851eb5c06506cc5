# complex64 through matrix products, square roots, products and their
# derivatives (holomorphic and of real-valued functions).
import jax
import jax.numpy as jnp

x = jnp.array([[1.0 + 2.0j, -0.5j], [3.0, 2.0 - 1.0j]])
y = jnp.array([[0.5 - 1.0j, 2.0], [1.0j, -1.0 + 0.5j]])
v = jnp.array([1.0, 2.0])

print(x @ y)
print(jnp.dot(x, v))
print(jnp.matmul(v, y))
print(jnp.einsum("ij,jk->ik", x, y))
print(jax.lax.dot_general(x, y, (((0,), (0,)), ((), ()))))
print(jnp.sqrt(x))
print(jnp.sqrt(jnp.array([-4.0 + 0.0j, -4.0 - 0.0j, 0.0j, 3.0 - 4.0j])))
print(jnp.prod(x), jnp.prod(y, axis=0))
print(jnp.mean(x), jnp.mean(y, axis=1))
print(jax.grad(lambda a: jnp.sum(a @ y), holomorphic=True)(x))
print(jax.grad(lambda a: jnp.sum(jnp.sqrt(a) * a), holomorphic=True)(x))
print(jax.grad(lambda a: jnp.real(jnp.sum((a @ y) * jnp.conj(a @ y))))(x))
print(jax.jvp(lambda a: a @ a, (x,), (y,))[1])
print(jax.jit(lambda a, b: jnp.sqrt(a @ b))(x, y))
result = jnp.stack([jnp.real(x @ y), jnp.imag(x @ y)])
