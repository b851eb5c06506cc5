import jax, jax.numpy as jnp
from jax import lax
x = jnp.arange(4.0)
a = lax.cond(True, lambda v: v * 2.0, lambda v: v + 1.0, x)
b = lax.cond(jnp.int32(0), lambda v: v * 2.0, lambda v: v + 1.0, x)
c = lax.cond(x[1] > 0.5, lambda u, w: (u * w, {"s": jnp.sum(u)}), lambda u, w: (u - w, {"s": jnp.max(u)}), x, 3.0)
branches = [lambda u, k: u * k, lambda u, k: u - k, lambda u, k: -u]
d = [lax.switch(i, branches, x, 2.0) for i in (-4, 0, 1, 2, 9)]
e = jax.jit(lambda i, v: lax.switch(i, branches, v, 0.5))(1, x)
closed = jnp.array([10.0, 20.0, 30.0, 40.0])
f = jax.jit(lambda p, v: lax.cond(p, lambda u: u + closed, lambda u: u * closed, v))(False, x)
g = jax.vmap(lambda p, v: lax.cond(p > 0, lambda u: u * 2.0, lambda u: -u, v))(jnp.array([1, -1, 2]), jnp.ones((3, 2)))
h = jax.vmap(lambda i: lax.switch(i, [lambda: 1.0, lambda: 2.0, lambda: 3.0]))(jnp.array([2, 0, 1, 7]))
s1 = lax.select_n(True, x, -x)
s2 = lax.select_n(jnp.array([0, 2, 1, 0]), x, -x, x * 10.0)
s3 = lax.select_n(jnp.array([True, False, True, False]), x, -x)
print(a, b, c[0], c[1]["s"])
print(d[0], d[1], d[2], d[3], d[4])
print(e, f)
print(g, h)
print(s1, s2, s3)
print(jax.make_jaxpr(lambda p, v: lax.cond(p, lambda u: u * 2.0, lambda u: u + 1.0, v))(True, x))
print(jax.make_jaxpr(lambda p, v: lax.select_n(p, v, v * 2.0))(True, x))
try:
    lax.switch(1.0, branches, x, 2.0)
except TypeError as err:
    print("TypeError:", err)
try:
    lax.cond(jnp.ones(2) > 0, lambda u: u, lambda u: u, x)
except TypeError as err:
    print("TypeError:", err)
for bad in [lambda: lax.select_n(True, x, jnp.ones(2)), lambda: lax.select_n(jnp.ones(2) > 0, x, x), lambda: lax.select_n(1.0, x, x)]:
    try:
        bad()
    except TypeError as err:
        print("TypeError:", err)
result = [a, b, c[0], c[1]["s"], d, e, f, g, h, s1, s2, s3]
