# How jaxprs show broadcasting and array creation: operands of lower rank
# gain leading axes through broadcast_in_dim, new axes are broadcast_in_dim,
# reshape names all its parameters, and zeros/ones/full under a trace are
# broadcasts of a scalar literal.
import jax
import jax.numpy as jnp

x23, x3 = jnp.ones((2, 3)), jnp.arange(3.0)
print(jax.make_jaxpr(lambda x, b: x + b)(x23, x3))
print(jax.make_jaxpr(lambda x, b: b * x - b)(x23, x3))
print(jax.make_jaxpr(lambda x: x + 1.0)(x23))
print(jax.make_jaxpr(lambda x, w, b: jnp.dot(x, w) + b)(jnp.ones((4, 2)), x23, x3))
print(jax.make_jaxpr(lambda x, c: jnp.maximum(x, c))(x23, jnp.ones((2, 1))))
print(jax.make_jaxpr(lambda x: x[:, None])(x3))
print(jax.make_jaxpr(lambda x: x[None])(x3))
print(jax.make_jaxpr(lambda x: jnp.expand_dims(x, 1))(x3))
print(jax.make_jaxpr(lambda x: x.reshape(3, 1))(x3))
print(jax.make_jaxpr(lambda x: x * jnp.ones(3))(x23))
print(jax.make_jaxpr(lambda x: x + jnp.zeros((2, 3), jnp.int32))(x23))
print(jax.make_jaxpr(lambda x: jnp.full((3,), 2) + x)(x3))
print(jax.make_jaxpr(lambda x: jnp.zeros_like(x) + jnp.ones_like(x))(x3))


@jax.jit
def biased(x, b):
    return (x[:, :, None] * b).sum(-1)


print(biased(jnp.ones((2, 3)), jnp.arange(4.0)))
print(jax.grad(lambda b: biased(jnp.ones((2, 3)), b).sum())(jnp.arange(4.0)))
result = biased(jnp.ones((2, 3)), jnp.arange(4.0))
