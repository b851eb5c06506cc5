# Arrays a traced function closes over are the constvars of its jaxpr,
# each printed once however often it is used; a jitted inner function keeps
# its own.
import jax
import jax.numpy as jnp

w = jnp.array([0.5, -1.0, 2.0, 4.0])
bias = jnp.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])


def affine(x):
    return x * w + w * 3.0


def rows(x):
    return bias * x + w


def inner_jit(x):
    return jax.jit(lambda y: y - w)(x) * 2.0


x = jnp.array([1.0, 2.0, 3.0, 4.0])
print(jax.make_jaxpr(affine)(x))
print(jax.make_jaxpr(rows)(x))
print(jax.make_jaxpr(inner_jit)(x))
print(affine(x), jax.jit(affine)(x))
print(rows(x))
print(inner_jit(x), jax.grad(lambda u: inner_jit(u).sum())(x))
result = jax.jit(rows)(x)

closed = jax.make_jaxpr(rows)(x)
print(len(closed.jaxpr.constvars), [v.aval for v in closed.jaxpr.constvars])
print(closed.consts)
print(closed.jaxpr.eqns[1].invars[1] is closed.jaxpr.constvars[1])
