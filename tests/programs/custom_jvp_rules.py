import jax, jax.numpy as jnp
from functools import partial

@jax.custom_jvp
def soft(x, y):
    return jnp.log1p(jnp.exp(x)) * y

@soft.defjvp
def soft_jvp(primals, tangents):
    x, y = primals
    dx, dy = tangents
    out = soft(x, y)
    return out, jax.nn.sigmoid(x) * y * dx + jnp.log1p(jnp.exp(x)) * dy

a = soft(2.0, 3.0)
p, t = jax.jvp(soft, (2.0, 3.0), (1.0, 0.5))
g = jax.grad(soft, argnums=(0, 1))(2.0, 3.0)
gj = jax.jit(jax.grad(soft))(2.0, 3.0)
gv = jax.vmap(jax.grad(soft))(jnp.array([-1.0, 0.0, 1.0]), jnp.array([1.0, 2.0, 3.0]))
print(a, p, t, g[0], g[1], gj)
print(gv)

@jax.custom_jvp
def clipped(x):
    return jnp.sin(x)

clipped.defjvps(lambda t, ans, x: 2.0 * jnp.cos(x) * t)
print(jax.grad(clipped)(0.3), jax.grad(jax.grad(clipped))(0.3))

@jax.custom_jvp
def two(x, y):
    return x * x * y

two.defjvps(lambda dx, ans, x, y: 2.0 * x * y * dx, None)
g2 = jax.grad(two, argnums=(0, 1))(1.5, 2.0)
print(g2[0], g2[1])

@jax.custom_jvp
def noisy(x):
    print("primal")
    return jnp.cos(x)

@noisy.defjvp
def noisy_jvp(primals, tangents):
    print("rule")
    (x,), (dx,) = primals, tangents
    return noisy(x), -jnp.sin(x) * dx

print(noisy(1.0))
print(jax.vmap(noisy)(jnp.array([0.0, 1.0])))
print(jax.grad(noisy)(1.0))
print(jax.grad(jax.grad(noisy))(1.0))

@partial(jax.custom_jvp, nondiff_argnums=(0,))
def apply(fn, x):
    return fn(x)

@apply.defjvp
def apply_jvp(fn, primals, tangents):
    (x,), (dx,) = primals, tangents
    return fn(x), 10.0 * dx

print(apply(lambda v: v ** 2, 3.0), jax.grad(apply, argnums=1)(lambda v: v ** 2, 3.0))

@jax.custom_jvp
def branchy(x):
    return jnp.where(x > 0, x, 0.0)

@branchy.defjvp
def branchy_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    if x > 0:
        return branchy(x), 4.0 * dx
    return branchy(x), 0.5 * dx

print(jax.grad(branchy)(2.0), jax.grad(branchy)(-2.0))

@jax.custom_jvp
def tree_out(d):
    return {"s": jnp.sin(d["a"]), "m": d["a"] * d["b"]}

@tree_out.defjvp
def tree_out_jvp(primals, tangents):
    (d,), (dd,) = primals, tangents
    return tree_out(d), {"s": jnp.cos(d["a"]) * dd["a"], "m": d["b"] * dd["a"] + d["a"] * dd["b"]}

gt = jax.grad(lambda d: tree_out(d)["s"] + 2.0 * tree_out(d)["m"])({"a": 0.7, "b": -1.2})
print(gt["a"], gt["b"])

@jax.custom_jvp
def undefined(x):
    return x * 2.0

for call in (lambda: undefined(1.0), lambda: jax.grad(undefined)(1.0)):
    try:
        call()
    except AttributeError as e:
        print("AttributeError:", e)

result = [a, p, t, g[0], g[1], gj, gv, g2[0], g2[1], gt["a"], gt["b"]]
