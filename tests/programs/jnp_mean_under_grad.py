# stdout: exact digits
# A mean under eager differentiation is JAX's compiled mean: the sum times
# the reciprocal of the count, in the value and in the gradient.
import jax
import jax.numpy as jnp

key = jax.random.key(3)
for n in [3, 7, 11, 49]:
    key, sub = jax.random.split(key)
    x = jax.random.normal(sub, (n,))
    v, g = jax.value_and_grad(lambda x: jnp.mean(x ** 2))(x)
    print(n, v.item(), g[:3].tolist())
    v2, g2 = jax.value_and_grad(lambda x: jnp.mean(jnp.sin(x) * x, axis=0))(x)
    print(v2.item(), g2[-2:].tolist())
print(jax.grad(lambda w: jnp.mean((w * jnp.arange(5.0) - 1.0) ** 2))(0.3).item())
print(jax.make_jaxpr(lambda x: jnp.mean(x))(jnp.ones(3)))
result = jax.value_and_grad(lambda x: jnp.mean(x ** 3))(jnp.arange(7.0) / 3.0)[0]
