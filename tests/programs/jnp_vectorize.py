from functools import partial

import jax
import jax.numpy as jnp


# Scalar functions broadcast over every argument.
def clipped_ratio(a, b):
    return jnp.where(b == 0, 0.0, a / b)


vr = jnp.vectorize(clipped_ratio)
x = jnp.arange(6.0).reshape(2, 3)
y = jnp.array([0.0, 2.0, 4.0])
print(vr(x, y))
print(vr(x, 2).dtype, vr(jnp.ones((1, 3)), jnp.ones((4, 1))).shape)
print(vr(3.0, 4.0), vr(3.0, 4.0).shape)


# A signature passes core dimensions whole.
@partial(jnp.vectorize, signature="(k),(k)->(k)")
def cross3(a, b):
    return jnp.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


u = jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
print(cross3(u, jnp.array([0.0, 0.0, 1.0])))
print(cross3(jnp.ones((1, 2, 3)), jnp.ones((2, 1, 3))).shape)


@partial(jnp.vectorize, signature="(n,m),(m)->(n)")
def matvec(m, v):
    return m @ v


print(matvec(jnp.ones((2, 3)), jnp.arange(12.0).reshape(4, 3)))
for bad in [lambda: matvec(jnp.ones(3), jnp.ones(3)), lambda: matvec(jnp.ones((2, 3)), jnp.ones(4))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)


# Several outputs, checked against the signature.
@partial(jnp.vectorize, signature="(n)->(),(n)")
def center(v):
    m = v.mean()
    return m, v - m


means, centered = center(jnp.array([[1.0, 2.0, 6.0], [4.0, 4.0, 7.0]]))
print(means, centered)


@partial(jnp.vectorize, signature="(n)->()")
def wrong(v):
    return v * 2


try:
    wrong(jnp.ones((2, 3)))
except ValueError as e:
    print("ValueError", e)
for sig in ["(n)->", "(n) -> ()", "n->()"]:
    try:
        jnp.vectorize(jnp.sum, signature=sig)(jnp.ones(3))
    except ValueError as e:
        print("ValueError", e)


# Excluded arguments are passed as they are.
def power_sum(x, powers):
    return sum(x**p for p in powers)


ps = jnp.vectorize(power_sum, excluded={1})
print(ps(jnp.array([1.0, 2.0, 3.0]), (1, 2)))
kw = jnp.vectorize(lambda x, scale=1.0: x * scale, excluded={"scale"})
print(kw(jnp.arange(3.0), scale=10.0))
try:
    jnp.vectorize(jnp.sin, excluded=[-1])
except ValueError as e:
    print("ValueError", e)
try:
    jnp.vectorize(jnp.sin, excluded=[1.5])
except TypeError as e:
    print("TypeError", e)

# Under jit and grad.
f = jax.jit(jnp.vectorize(lambda a, b: a * jnp.sin(b)))
print(f(jnp.arange(3.0), jnp.array([[0.5], [1.0]])))
g = jax.grad(lambda t: jnp.vectorize(lambda a: a**3)(t).sum())
print(g(jnp.array([1.0, 2.0, -1.0])))

result = [vr(x, y), means, centered]
