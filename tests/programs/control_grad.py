import jax, jax.numpy as jnp
from jax import lax
f = lambda a: lax.scan(lambda c, x: (c * c * x, c * x), a, jnp.arange(1.0, 4.0))[0]
g1 = jax.grad(f)(0.7)
j1 = jax.jvp(f, (0.7,), (1.0,))
h = lambda a, b: jnp.sum(lax.scan(lambda c, x: (c * b + x, c * c * b), a, jnp.arange(4.0).reshape(4, 1) * jnp.ones((4, 2)), reverse=True)[1])
g2 = jax.grad(h, argnums=(0, 1))(jnp.array([0.3, 0.4]), 1.1)
k = lambda a: lax.cond(a > 0, lambda u: u * u * 3.0, lambda u: u * u * u, a)
g3 = [jax.grad(k)(0.5), jax.grad(k)(-0.5), jax.jvp(k, (0.5,), (2.0,))[1]]
s = lambda a, i: lax.switch(i, [lambda u: u * u, lambda u: u * 4.0, lambda u: -u], a)
g4 = [jax.grad(s)(0.3, i) for i in range(3)]
fl = lambda a: lax.fori_loop(0, 4, lambda i, c: c * a + i, 1.0)
g5 = [jax.grad(fl)(0.9), jax.jit(jax.grad(fl))(0.9)]
wl = lambda a: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * a), (0, 1.0))[1]
j6 = jax.jvp(wl, (1.5,), (1.0,))
g7 = jax.grad(lambda a: jnp.sum(lax.map(lambda r: r * r * a, jnp.arange(6.0).reshape(3, 2))))(0.3)
g8 = jax.jit(jax.grad(lambda a: lax.cond(a > 1.0, lambda u: u * 3.0, lambda u: u * u, a)))(0.5)
g9 = jax.grad(lambda a: jax.grad(lambda b: lax.scan(lambda c, x: (c * b, c), a, None, length=3)[0])(a))(1.2)
g10 = jax.grad(lambda p: jnp.sum(lax.scan(lambda c, x: (c * p["w"] + x * p["b"], c), jnp.zeros(2), jnp.ones((3, 2)))[0]))({"w": 0.5, "b": 2.0})
g11 = jax.vmap(jax.grad(lambda a, p: lax.cond(p, lambda u: u * u, lambda u: u * 5.0, a)))(jnp.array([0.5, 0.5]), jnp.array([True, False]))
print(g1, j1[0], j1[1])
print(g2[0], g2[1])
print(*g3, *g4)
print(*g5, j6[0], j6[1], g7, g8, g9)
print(g10["w"], g10["b"], g11)
try:
    jax.grad(lambda a: lax.while_loop(lambda c: c < 3.0, lambda c: c * 2.0, a))(1.0)
except ValueError as err:
    print("ValueError:", err)
result = [g1, j1[0], j1[1], g2[0], g2[1], g3, g4, g5, j6[0], j6[1], g7, g8, g9, g10["w"], g10["b"], g11]
