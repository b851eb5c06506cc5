import jax, jax.numpy as jnp
from jax import lax
x = jnp.arange(3.0)
w1 = lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))
w2 = lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)
w3 = lax.while_loop(lambda c: c["n"] > 0, lambda c: {"n": c["n"] - 1, "v": [c["v"][0] + c["n"]]}, {"n": 4, "v": [x]})
f1 = lax.fori_loop(0, 5, lambda i, c: c + i, x)
f2 = lax.fori_loop(2, 6, lambda i, c: c * 2.0 + 1.0, 0)
f3 = jax.jit(lambda n, v: lax.fori_loop(0, n, lambda i, c: c * 1.5, v))(4, x)
f4 = lax.fori_loop(3, 1, lambda i, c: c + 100.0, x)
f5 = jax.jit(lambda v: lax.fori_loop(0, 3, lambda i, c: (c[0] + v, c[1] - 1), (v, 10)))(x)
vw = jax.vmap(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0)))(jnp.array([1, 3, 0]))
print(w1[0], w1[1], w2, w3["n"], w3["v"][0])
print(f1, f2, f3, f4, f5[0], f5[1])
print(vw[0], vw[1])
print(jax.make_jaxpr(lambda v: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, v)))(x))
print(jax.make_jaxpr(lambda v: lax.fori_loop(0, 5, lambda i, c: c * 2.0, v))(x))
print(jax.make_jaxpr(lambda n, v: lax.fori_loop(0, n, lambda i, c: c * 2.0, v))(3, x))
for bad in [lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.ones(2)), (0, x)),
            lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: [c[0] + 1, c[1]], (0, x)),
            lambda: lax.while_loop(lambda c: c > 0, lambda c: (c, c), x[0]),
            lambda: lax.while_loop(lambda c: jnp.ones(2) > 0, lambda c: c + 1, 0),
            lambda: lax.fori_loop(0, 3, lambda i, c: (c, c), x),
            lambda: lax.fori_loop(0, 3.0, lambda i, c: c, x)]:
    try:
        bad()
    except TypeError as err:
        print("TypeError:", err)
result = [w1[0], w1[1], w2, w3["n"], w3["v"][0], f1, f2, f3, f4, f5[0], f5[1], vw[0], vw[1]]
