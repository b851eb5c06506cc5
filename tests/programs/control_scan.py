import jax, jax.numpy as jnp
from jax import lax
xs = jnp.arange(12.0).reshape(4, 3)
c0 = jnp.ones(3)
a = lax.scan(lambda c, x: (c + x, c * x), c0, xs)
b = lax.scan(lambda c, x: (c * 3.0 + x, (c, jnp.sum(x))), c0, xs, reverse=True, unroll=2)
m = lax.map(lambda r: r * 2.0 + 1.0, xs)
n = lax.scan(lambda c, _: (c + 1.0, c), 1.0, None, length=3)
t = lax.scan(lambda c, x: ({"a": c["a"] + x[0], "b": c["b"] * 2}, [x[1] * c["a"], None]), {"a": 0.0, "b": 1}, (jnp.arange(3.0), jnp.ones(3)))
scale = jnp.float32(0.5)
j = jax.jit(lambda v: lax.scan(lambda c, x: (c * scale + x, c), v, xs))(c0)
z = lax.scan(lambda c, x: (c, x), 0.0, jnp.zeros((0, 2)))
u = lax.scan(lambda c, x: (c + x, None), 0, jnp.arange(5), unroll=True)
vm = jax.vmap(lambda v: lax.scan(lambda c, x: (c * x, c), 1.0, v))(xs)
print(a[0], a[1])
print(b[0], b[1][0], b[1][1])
print(m, n[0], n[1])
print(t[0]["a"], t[0]["b"], t[1][0], t[1][1])
print(j[0], j[1])
print(z[0], z[1].shape, u[0], u[1])
print(vm[0], vm[1])
print(jax.make_jaxpr(lambda c, x: lax.scan(lambda c, x: (c + x, c * x), c, x))(c0, xs))
print(jax.make_jaxpr(lambda v: lax.map(lambda r: r * 2.0, v))(xs))
print(jax.make_jaxpr(lambda c, x, w: lax.scan(lambda c, x: (c * w + x, c), c, x, reverse=True))(c0, xs, jnp.ones(3)))
for bad in [lambda: lax.scan(lambda c, x: (jnp.ones(2), x), c0, xs),
            lambda: lax.scan(lambda c, x: ((c, c), x), c0, xs),
            lambda: lax.scan(lambda c, x: c, c0, xs),
            lambda: lax.scan(lambda c, x: (c, x), c0, None),
            lambda: lax.scan(lambda c, x: (c, x), c0, xs, length=5),
            lambda: lax.scan(lambda c, x: (c, x), c0, (xs, jnp.ones(5))),
            lambda: lax.scan(lambda c, x: (c, x), c0, 1.0)]:
    try:
        bad()
    except (TypeError, ValueError) as err:
        print(type(err).__name__, err)
result = [a[0], a[1], b[0], b[1][0], b[1][1], m, n[0], n[1], t[0]["a"], t[0]["b"], t[1][0], j[0], j[1], z[0], u[0], vm[0], vm[1]]
