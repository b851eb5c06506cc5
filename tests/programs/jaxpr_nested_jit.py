# jax.numpy functions that JAX jits appear as nested jit equations in a
# printed jaxpr; the numbers they compute are unchanged under jit, grad and vmap.
import jax
import jax.numpy as jnp


def leaky(v):
    return jnp.where(v > 0, v, 0.1 * v - 0.5)


def bounded(v):
    return jnp.clip(v * 3.0, -1.0, 2.0) + jnp.clip(v, 0.25)


v = jnp.array([-2.0, -1.5, -0.75, 0.0, 0.5, 1.25, 2.0])
print(jax.make_jaxpr(leaky)(v))
print(jax.make_jaxpr(bounded)(v))
print(jax.make_jaxpr(lambda m, a, b: jnp.where(m, a, b))(v > 0, v, v * v))
print(leaky(v))
print(jax.jit(leaky)(v))
print(jax.grad(lambda u: leaky(u).sum())(v))
print(jax.jit(jax.grad(lambda u: bounded(u).sum()))(v))
print(jax.vmap(bounded)(jnp.stack([v, -v])))
print(jax.jit(jax.vmap(leaky))(jnp.stack([v, 2 * v])))
result = jax.jit(lambda u: leaky(u) * bounded(u))(v)
